#!/usr/bin/env bash
# `roofcast profile --backend perf` resolves the symbols of a test program with named functions: the
# function that runs longest (heavy_stream) has the largest sampled time and is named, not an address.
# Usage: bash profile_perf.sh <roofcast binary> <source dir>
set -euo pipefail
source "$(dirname "$0")/lib/setup.sh" "$@"
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v perf >/dev/null || { echo "SKIP: perf is not installed (Debian package linux-perf)"; exit 77; }
perf stat -e cpu-clock -- true >/dev/null 2>&1 ||
    { echo "SKIP: perf refuses to count cpu-clock here (perf_event_paranoid?)"; exit 77; }
command -v cc >/dev/null || { echo "SKIP: no C compiler (cc)"; exit 77; }
cc -O1 -g -o "$tmp/app" "$src/tests/e2e/data/profile_app.c"
# About 0.3 s of work, so that heavy_stream gets many cpu-clock samples (4 kHz default).
"$bin" profile --backend perf -o "$tmp/p.json" -- "$tmp/app" 2000000 > "$tmp/log"
grep -q 'backend: perf (requested)' "$tmp/log" || fail "backend line"
python3 - "$tmp/p.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["backend"] == "perf", d["backend"]
funcs = {f["name"]: f["metrics"] for f in d["functions"] if "time" in f["metrics"]}
assert "heavy_stream" in funcs, sorted(funcs)[:20]
t = funcs["heavy_stream"]["time"]
assert t["origin"] == "sampled", t
best = max(funcs, key=lambda n: funcs[n]["time"]["per_rank"][0][0])
assert best == "heavy_stream", best
assert funcs["heavy_stream"]["time_percent"]["per_rank"][0][0] > 20, funcs["heavy_stream"]["time_percent"]
PY
echo ok
