#!/usr/bin/env bash
# End to end: the main job, `roofcast run`, on a reduced suite (--suite stream, the four STREAM kernels) with
# HOME pointed at a fresh directory. A machine file of another CPU placed in the cache is refused, stderr
# naming the field that differs, and this host is measured and cached in its place; the summary table has
# its columns and every row's error is reproduced from the best epoch printed beside it; the report
# directory holds its files; a second run reuses the cached file, and so does `predict` without --machine.
# Usage: bash run_main_job.sh <roofcast binary> <source dir>
set -euo pipefail
source "$(dirname "$0")/lib/setup.sh" "$@"
fail() { echo "FAIL: $*"; exit 1; }
command -v python3 >/dev/null || { echo "skipped: python3 is missing (it reads the summary and results.json)"; exit 77; }
field() { sed -n "s/^$1[[:space:]]*: //p" /proc/cpuinfo | head -1; }
vendor=$(field vendor_id) family=$(field "cpu family") model=$(field model)
[[ -n $vendor && -n $family && -n $model ]] || { echo "skipped: /proc/cpuinfo gives no x86 CPU identity"; exit 77; }

# The cache of a user whose home is $tmp/home (XDG_CACHE_HOME unset: ~/.cache).
home="$tmp/home"
cache="$home/.cache/roofcast/machine-$(uname -n | sed 's/[^A-Za-z0-9._-]/_/g').yaml"
mkdir -p "$(dirname "$cache")"
run() { env -u XDG_CACHE_HOME HOME="$home" "$bin" "$@"; }

# A machine file of this vendor and family but another model: a shipped file given that CPU's identity.
other=$(( (model + 1) % 256 ))
sed "s/^topology:/topology:\n  vendor: $vendor\n  family: $family\n  model: $other\n  stepping: 0/" \
    "$src/data/machines/example-caches.yaml" >"$cache"
grep -q "^  model: $other$" "$cache" || fail "the foreign machine file was not made"

run run --suite stream -o "$tmp/rep" >"$tmp/out1" 2>"$tmp/err1" || { cat "$tmp/out1" "$tmp/err1"; fail "run exited non-zero"; }
want="roofcast: cached machine file $cache is of another CPU (family $family model $other, this host family $family model $model): measuring this one"
grep -qxF "$want" "$tmp/err1" || { cat "$tmp/err1"; fail "no line saying why the foreign file was not reused: $want"; }
grep -q "characterizing this machine (quick mode)" "$tmp/err1" || fail "the machine was not measured again"
grep -qxF "roofcast: machine file cached at $cache" "$tmp/err1" || fail "the measurement was not cached"
# The cached file is now this host's: its identity and the measurement revision, and it validates.
grep -qx "  vendor: $vendor" "$cache" && grep -qx "  family: $family" "$cache" && grep -qx "  model: $model" "$cache" ||
    fail "the cached file does not record this CPU: $(grep -E '^  (vendor|family|model|stepping):' "$cache")"
grep -qE '^measurement_revision: [0-9]+$' "$cache" || fail "the cached file records no measurement_revision"
"$bin" validate --strict "$cache" >/dev/null || fail "the cached machine file does not validate"

# The summary: its columns, the STREAM kernels in run order, each error from the best epoch in its row.
head -1 "$tmp/out1" | grep -qE '^kernel +median +best epoch +epochs min\.\.max +spread +prediction +model +error +bottleneck$' ||
    fail "summary header: $(head -1 "$tmp/out1")"
python3 - "$tmp/out1" "$tmp/rep/results.json" <<'PY' || fail "the summary or results.json"
import json, re, sys
text = open(sys.argv[1]).read()
si = {"": 1, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
num = r"(\d+(?:\.\d+)?)"
rate = num + r" ([kMGT]?)(?:B|FLOP)/s"
row = re.compile(rf"^(\S+) +{rate} +{rate} +{num} ?(?:[kMGT]?(?:B|FLOP)/s)?\.\.{rate} +\S+ %!? +{rate} +\S+ +([+-]{num[1:]} % +\S+$")
rows = [m for m in map(row.match, text.splitlines()) if m]
assert [m[1] for m in rows] == ["stream-copy", "stream-scale", "stream-add", "stream-triad"], text
for m in rows:
    median, best = float(m[2]) * si[m[3]], float(m[4]) * si[m[5]]
    predicted, error = float(m[9]) * si[m[10]], float(m[11])
    # Rates printed to three significant digits: 0.5 % each; the error to 0.05 points.
    tolerance = 100 * predicted / best * 0.01 + 0.05
    assert abs((predicted / best - 1) * 100 - error) <= tolerance, (m[0], "error not reproducible from the best epoch")
    assert median <= best, m[0]
assert "best epoch" in text and "calibration loops" not in text.split("\n")[0]
r = json.load(open(sys.argv[2]))
assert r["kind"] == "roofcast-results", r.get("kind")
for k in r["kernels"]:
    b = k["error_basis"]
    assert b["statistic"] == "best_epoch", b
    for p in k["predictions"]:
        want = (b["seconds_per_iteration"] / p["seconds_per_iteration"] - 1) * 100
        assert abs(want - p["error_pct"]) < 1e-6 * max(1, abs(want)), (k["name"], p["model"], want, p["error_pct"])
PY
for f in index.html roofline.svg bandwidth.svg results.json machine.yaml; do
    [[ -s "$tmp/rep/$f" ]] || fail "the report has no $f"
done
grep -q "Best epoch (min..max)" "$tmp/rep/index.html" || fail "the report's Predictions table has no best-epoch column"
"$bin" validate --strict "$tmp/rep/results.json" >/dev/null || fail "results.json fails validate --strict"
"$bin" validate --strict "$tmp/rep/machine.yaml" >/dev/null || fail "machine.yaml fails validate --strict"
grep -qx "  family: $family" "$tmp/rep/machine.yaml" || fail "the report's machine.yaml is not this host's"

# A second run reuses the cached file, measuring nothing.
run run --suite stream -o "$tmp/rep2" >"$tmp/out2" 2>"$tmp/err2" || { cat "$tmp/err2"; fail "the second run exited non-zero"; }
grep -qxF "roofcast: using the cached machine file $cache (--fresh measures again)" "$tmp/err2" ||
    { cat "$tmp/err2"; fail "the second run did not say it reused the cache"; }
grep -q "characterizing" "$tmp/err2" && fail "the second run measured the machine again"

# Commands that take --machine use this host's cached file when none is given, and say so.
run predict "$src/data/kernels/triad.yaml" >"$tmp/pred" 2>"$tmp/perr" || { cat "$tmp/perr"; fail "predict without --machine"; }
grep -qF "roofcast: no --machine given: using this host's cached machine file $cache" "$tmp/perr" ||
    { cat "$tmp/perr"; fail "predict did not say it used this host's cached file"; }
grep -q "characterizing" "$tmp/perr" && fail "predict measured although the cache is this host's"
if err=$(run predict "$src/data/kernels/triad.yaml" --no-machine 2>&1 >/dev/null); then fail "predict --no-machine succeeded"; fi
grep -q "roofcast: error: .*predict needs a machine" <<<"$err" || fail "predict --no-machine: $err"
echo "ok"
