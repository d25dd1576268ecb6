#!/usr/bin/env bash
# End-to-end: a key that the machine, kernel, results or profile format does not read (a misspelt one would
# otherwise be dropped in silence) is a warning naming file and key on every command that reads the file, and
# an error (one line, exit 1) under `validate --strict`; the shipped files and fixtures pass --strict.
set -uo pipefail
source "$(dirname "$0")/lib/setup.sh" "$@"
fail() { echo "FAIL: $*"; exit 1; }

"$bin" validate --strict "$src"/data/machines/*.yaml "$src"/data/kernels/*.yaml "$src"/data/profiles/*.json \
    "$src"/tests/report/data/*.json >/dev/null || fail "a shipped file has a key its format does not read"

sed 's/^  - {name: L2, /  - {name: L2, bandwith_gbs: 9, /' "$src/data/machines/example-published.yaml" >"$work/m.yaml"
grep -q "bandwith_gbs" "$work/m.yaml" || fail "the test could not plant the misspelt key"
err=$("$bin" validate "$work/m.yaml" 2>&1 >/dev/null) || fail "validate without --strict refused the file: $err"
grep -q "warning: $work/m.yaml: unknown key 'levels\[1\].bandwith_gbs'" <<<"$err" || fail "no warning: $err"
err=$("$bin" validate --strict "$work/m.yaml" 2>&1) && fail "--strict accepted an unknown key"
[[ $(wc -l <<<"$err") -eq 1 ]] || fail "--strict error is not one line: $err"
grep -q "m.yaml.*levels\[1\].bandwith_gbs.*unknown key" <<<"$err" || fail "--strict error: $err"

printf 'format_version: 1\nname: k\nflops_per_iteration: 2\nbytes_per_iteration: {MEM: 24}\nprecison: single\n' >"$work/k.yaml"
err=$("$bin" predict "$work/k.yaml" --machine "$src/data/machines/example-published.yaml" 2>&1 >/dev/null) ||
    fail "predict refused a kernel with an unknown key: $err"
grep -q "unknown key 'precison'" <<<"$err" || fail "predict did not warn about the kernel's key: $err"

# A results file: a misspelt key of a kernel and one of the embedded machine, named with their paths.
python3 - "$src/tests/report/data/results.json" "$work/r.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["kernels"][3]["precison"] = "single"
r["machine"]["levels"][0]["bandwith_gbs"] = 9
json.dump(r, open(sys.argv[2], "w"))
PY
err=$("$bin" plot "$work/r.json" -o "$work/r.svg" 2>&1 >/dev/null) || fail "plot refused a results file with unknown keys: $err"
grep -q "warning: $work/r.json: unknown key 'kernels\[3\].precison'" <<<"$err" || fail "plot did not warn: $err"
grep -q "unknown key 'machine.levels\[0\].bandwith_gbs'" <<<"$err" || fail "no warning for the machine's key: $err"
err=$("$bin" validate --strict "$work/r.json" 2>&1) && fail "--strict accepted a results file with an unknown key"
[[ $(wc -l <<<"$err") -eq 1 ]] || fail "--strict error is not one line: $err"
grep -q "r.json: field 'kernels\[3\].precison': unknown key" <<<"$err" || fail "--strict error: $err"

# A profile (version 1 for scale, version 2 as roofcast profile writes it): the same for both readers.
python3 - "$src/data/profiles/run-008.json" "$work/p.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p["functions"][1]["metrics"]["time"]["agregate"] = "max"
json.dump(p, open(sys.argv[2], "w"))
PY
err=$("$bin" scale "$work/p.json" "$src/data/profiles/run-016.json" 2>&1 >/dev/null) ||
    fail "scale refused a profile with an unknown key: $err"
grep -q "warning: $work/p.json: unknown key 'functions\[1\].metrics.time.agregate'" <<<"$err" ||
    fail "scale did not warn: $err"
err=$("$bin" validate --strict "$work/p.json" 2>&1) && fail "--strict accepted a profile with an unknown key"
[[ $(wc -l <<<"$err") -eq 1 ]] || fail "--strict error is not one line: $err"
grep -q "p.json: field 'functions\[1\].metrics.time.agregate': unknown key" <<<"$err" || fail "--strict error: $err"
"$bin" profile --backend time -o "$work/v2.json" -- true >/dev/null 2>&1 || fail "roofcast profile --backend time failed"
"$bin" validate --strict "$work/v2.json" >/dev/null || fail "the profile roofcast wrote fails --strict"
sed 's/"backend_reason"/"backend_reasn"/' "$work/v2.json" >"$work/v2-bad.json"
err=$("$bin" plot "$work/v2-bad.json" --machine "$src/data/machines/example-caches.yaml" -o "$work/v2.svg" 2>&1 >/dev/null) ||
    fail "plot refused a profile with an unknown key: $err"
grep -q "unknown key 'backend_reasn'" <<<"$err" || fail "plot did not warn about the profile's key: $err"
echo "ok"
