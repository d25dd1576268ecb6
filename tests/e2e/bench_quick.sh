#!/usr/bin/env bash
# End to end: `roofcast bench --quick --threads 1 --suite stream` on a shipped machine file exits 0,
# prints the table and writes a results JSON that passes validate --strict; --calibrate writes a machine
# file that validates; unknown suite/kernel names and a missing machine file fail with one clear line.
# Usage: bash bench_quick.sh <roofcast binary> <source dir>
set -euo pipefail
source "$(dirname "$0")/lib/setup.sh" "$@"
bin=$(realpath "$bin") # one command below runs from inside $tmp
machine="$src/data/machines/example-caches.yaml"
[[ -f "$machine" ]] || { echo "skipped: $machine is missing"; exit 77; }
need python3 # reads the results files
fail() { echo "FAIL: $*"; exit 1; }

"$bin" bench --quick --threads 1 --suite stream --machine "$machine" --json "$tmp/r.json" >"$tmp/out" 2>"$tmp/err" ||
    { cat "$tmp/out" "$tmp/err"; fail "bench --suite stream exited non-zero"; }
grep -q '^stream-triad ' "$tmp/out" || fail "no stream-triad row in the table"
grep -q 'model accuracy over' "$tmp/out" || fail "no accuracy summary"
grep -q 'stream-copy' "$tmp/err" || fail "no progress on stderr"
[[ -s "$tmp/r.json" ]] || fail "no JSON written"
"$bin" validate --strict "$tmp/r.json" >/dev/null || fail "the results file bench wrote fails validate --strict"
python3 - "$tmp/r.json" <<'PY' || fail "results JSON is not valid"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["kind"] == "roofcast-results" and r["format_version"] == 1, r.get("kind")
names = [k["name"] for k in r["kernels"]]
assert names == ["stream-copy", "stream-scale", "stream-add", "stream-triad"], names
for k in r["kernels"]:
    assert k["measured"]["seconds"]["median"] > 0
    assert {p["model"] for p in k["predictions"]} == {"roofline", "hierarchical", "cache-aware", "mixed"}
# Four reference probes (docs/noise.md): memory, cache (the L3 this machine file's two cores share), core
# and compute, each with one epoch before every kernel and one closing the round; the STREAM rows are judged
# against the memory probe.
probes = r["host_noise"]["probes"]
assert [p["kind"] for p in probes] == ["memory", "cache", "core", "compute"], probes
assert [p["kernel"] for p in probes] == ["calib-MEM-2F", "calib-L3-3F", "calib-L2-3F", "calib-L2-49F"], probes
assert all(len(p["gbs"]) == len(names) + 1 for p in probes), [len(p["gbs"]) for p in probes]
assert all(k["noise"]["probe"] == "memory" for k in r["kernels"]), [k["noise"] for k in r["kernels"]]
PY

# A compute-bound kernel is judged against the compute probe.
"$bin" bench --quick --threads 1 --kernel matmul-blocked-tuned --machine "$machine" --json "$tmp/m.json" >"$tmp/out" 2>"$tmp/err" ||
    { cat "$tmp/out" "$tmp/err"; fail "bench --kernel matmul-blocked-tuned exited non-zero"; }
grep -q 'compute probe calib-L2-.* GFLOP/s' "$tmp/out" || { cat "$tmp/out"; fail "no compute probe in the host noise line"; }
python3 - "$tmp/m.json" <<'PY' || fail "matmul-blocked-tuned is not judged against the compute probe"
import json, sys
r = json.load(open(sys.argv[1]))
k = r["kernels"][0]
mixed = next(p for p in k["predictions"] if p["model"] == "mixed")
assert mixed["bottleneck"] == "compute", mixed["bottleneck"]
assert k["noise"]["probe"] == "compute", k["noise"]
PY

# Calibration writes a complete machine file atomically.
"$bin" bench --calibrate --quick --threads 1 --machine "$machine" -o "$tmp/cal.yaml" >"$tmp/out" 2>"$tmp/err" ||
    { cat "$tmp/out" "$tmp/err"; fail "bench --calibrate exited non-zero"; }
grep -q 'effective_bandwidth_gbs' "$tmp/cal.yaml" || fail "no effective bandwidth in the calibrated file"
"$bin" validate "$tmp/cal.yaml" >/dev/null || fail "calibrated machine file does not validate"

# Bad names: non-zero exit, one line listing the valid ones.
if "$bin" bench --suite nope --machine "$machine" >"$tmp/out" 2>"$tmp/err"; then fail "unknown suite accepted"; fi
grep -q "unknown suite 'nope'; valid: stream, calibrate, mixed, apps, all" "$tmp/err" || { cat "$tmp/err"; fail "suite error"; }
if "$bin" bench --kernel nope --machine "$machine" >"$tmp/out" 2>"$tmp/err"; then fail "unknown kernel accepted"; fi
grep -q "unknown kernel 'nope'; valid: stream-copy, " "$tmp/err" || { cat "$tmp/err"; fail "kernel error"; }
(cd "$tmp" && if "$bin" bench --suite stream >out 2>err; then exit 1; fi; grep -q 'no machine file: run `roofcast machine` or pass --machine' err) ||
    fail "missing machine file not reported"
echo "bench e2e: ok"
