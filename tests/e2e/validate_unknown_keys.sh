#!/usr/bin/env bash
# End-to-end: a key that the machine or kernel format does not read (a misspelt one would otherwise be
# dropped in silence) is a warning naming file and key on every command that reads the file, and an error
# (one line, exit 1) under `validate --strict`; the shipped files pass --strict.
set -uo pipefail
source "$(dirname "$0")/lib/setup.sh" "$@"
fail() { echo "FAIL: $*"; exit 1; }

"$bin" validate --strict "$src"/data/machines/*.yaml "$src"/data/kernels/*.yaml >/dev/null ||
    fail "a shipped file has a key its format does not read"

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
echo "ok"
