#!/usr/bin/env bash
# End-to-end test of `roofcast profile` at 2 ranks (mpirun) with the time and cachegrind backends on a tiny
# program (data/profile_app.c), read back with `roofcast validate` and `roofcast scale`.
# Usage: bash profile_ranks.sh <roofcast binary> <source dir>
set -euo pipefail
bin=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v mpirun >/dev/null || { echo "SKIP: no mpirun on PATH (Open MPI not installed)"; exit 77; }
command -v cc >/dev/null || { echo "SKIP: no C compiler (cc)"; exit 77; }
cc -O1 -g -march=x86-64-v2 -o "$tmp/app" "$src/tests/e2e/data/profile_app.c"

# time backend at 1 and 2 ranks: marker regions from every rank, declared work, per_rank arrays of 2.
"$bin" profile --backend time --ranks 1 -o "$tmp/t1.json" -- "$tmp/app" 100000 > "$tmp/t1.log"
"$bin" profile --backend time --ranks 2 -o "$tmp/t2.json" -- "$tmp/app" 100000 > "$tmp/t2.log"
grep -q 'backend: time (requested)' "$tmp/t2.log" || fail "backend line: $(cat "$tmp/t2.log")"
python3 - "$tmp/t2.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["format"] == "roofcast-profile" and d["format_version"] == 2, d["format_version"]
assert d["backend"] == "time" and d["parameters"] == {"ranks": 2}, d
assert d["run"]["ranks"] == 2 and d["run"]["cores"] == 2 and d["run"]["wall_seconds"] > 0, d["run"]
f = {x["name"]: x for x in d["functions"]}
heavy = f["main->heavy"]["metrics"]
assert heavy["flops"]["origin"] == "declared" and heavy["flops"]["per_rank"] == [[20 * 50000, 20 * 50000]], heavy
assert heavy["time"]["origin"] == "counted" and len(heavy["time"]["per_rank"][0]) == 2, heavy["time"]
PY
"$bin" validate "$tmp/t2.json" | grep -q 'roofcast profile' || fail "validate"

# cachegrind at 1 and 2 ranks: per-function simulated counts of every rank.
if command -v valgrind >/dev/null; then
    for r in 1 2; do
        "$bin" profile --backend cachegrind --ranks $r -o "$tmp/c$r.json" -- "$tmp/app" 100000 > "$tmp/c$r.log"
    done
    grep -q 'cachegrind caches: D1 ' "$tmp/c2.log" || fail "cache geometry line: $(cat "$tmp/c2.log")"
    python3 - "$tmp/c1.json" "$tmp/c2.json" <<'PY'
import json, sys
one, two = (json.load(open(p)) for p in sys.argv[1:3])
def fn(d, name):
    return next(x for x in d["functions"] if x["name"].startswith(name))["metrics"]
h1, h2 = fn(one, "heavy_stream"), fn(two, "heavy_stream")
assert h2["L1_DCM"]["origin"] == "simulated" and len(h2["L1_DCM"]["per_rank"][0]) == 2, h2["L1_DCM"]
ins1, ins2 = h1["INS"]["per_rank"][0][0], h2["INS"]["per_rank"][0]
# The work is split over the ranks: each rank executes about half the instructions of one rank.
assert all(0.4 < v / ins1 < 0.6 for v in ins2), (ins1, ins2)
# 20 sweeps over 50000 doubles (400 KB, more than any L1): at least one miss per line per sweep.
assert h2["L1_DCM"]["per_rank"][0][0] >= 20 * 50000 / 8 * 0.9, h2["L1_DCM"]
assert fn(two, "main->heavy")["flops"]["origin"] == "declared"
PY
    "$bin" validate "$tmp/c2.json" | grep -q 'roofcast profile' || fail "validate cachegrind"
else
    echo "note: valgrind not installed: cachegrind part skipped"
fi

# roofcast scale reads the profiles unchanged (two points: the fit is noted as thin, not refused).
"$bin" profile --backend time --ranks 2 --param ranks=4 -o "$tmp/t4.json" -- "$tmp/app" 100000 > /dev/null
"$bin" scale "$tmp/t1.json" "$tmp/t2.json" "$tmp/t4.json" > "$tmp/scale.txt" || fail "scale: $(cat "$tmp/scale.txt")"
grep -q 'main->heavy' "$tmp/scale.txt" || fail "scale lacks main->heavy: $(cat "$tmp/scale.txt")"
echo "ok"
