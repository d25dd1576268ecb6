#!/usr/bin/env bash
# End-to-end test of `roofcast profile` at 2 ranks (mpirun) with the time and cachegrind backends on a tiny
# program (data/profile_app.c), read back with `roofcast validate` and `roofcast scale`.
# Usage: bash profile_ranks.sh <roofcast binary> <source dir>
set -euo pipefail
source "$(dirname "$0")/lib/setup.sh" "$@"
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
assert d["format"] == "roofcast-profile" and d["format_version"] == 3, d["format_version"]
assert d["backend"] == "time" and d["parameters"] == {"ranks": 2}, d
assert d["run"]["ranks"] == 2 and d["run"]["cores"] == 2 and d["run"]["wall_seconds"] > 0, d["run"]
f = {x["name"]: x for x in d["functions"]}
heavy = f["main->heavy"]["metrics"]
assert heavy["flops"]["origin"] == "declared" and heavy["flops"]["per_rank"] == [[20 * 50000, 20 * 50000]], heavy
assert heavy["time"]["origin"] == "counted" and len(heavy["time"]["per_rank"][0]) == 2, heavy["time"]
PY
"$bin" validate "$tmp/t2.json" | grep -q 'roofcast profile' || fail "validate"

# --repeat: one per_rank row per run; auto says which backend it picked and why.
"$bin" profile --backend time --repeat 2 -o "$tmp/rep.json" -- "$tmp/app" 1000 > /dev/null
python3 -c "
import json, sys; d = json.load(open(sys.argv[1])); m = d['functions'][0]['metrics']['time']
assert d['run']['repetitions'] == 2 and len(m['per_rank']) == 2 and len(m['per_rank'][0]) == 1, d" "$tmp/rep.json"
"$bin" profile --no-machine -o "$tmp/auto.json" -- "$tmp/app" 1000 > "$tmp/auto.log"
grep -Eq '^backend: (papi|perf|callgrind|cachegrind|time) \(.+\)$' "$tmp/auto.log" || fail "auto: $(cat "$tmp/auto.log")"

# The real marker library through an example app, when it was built beside roofcast (CMake found MPI).
cg=$(dirname "$bin")/roofcast-example-cg
if [[ -x $cg ]]; then
    "$bin" profile --backend time --ranks 2 -o "$tmp/cg.json" -- "$cg" --n 16 --iters 3 > /dev/null
    python3 - "$tmp/cg.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
f = {x["name"]: x["metrics"] for x in d["functions"]}
spmv = f["cg->spmv"]
assert spmv["flops"]["origin"] == "declared" and all(v > 0 for v in spmv["flops"]["per_rank"][0]), spmv
assert spmv["calls"]["per_rank"] == [[3, 3]], spmv["calls"]
assert len(spmv["time"]["per_rank"][0]) == 2, spmv["time"]
PY
else
    skip_part "roofcast-example-cg was not built (CMake found no MPI): the marker-library check was not run"
fi

# cachegrind at 1 and 2 ranks: per-function simulated counts of every rank.
if command -v valgrind >/dev/null; then
    for r in 1 2; do
        "$bin" profile --backend cachegrind --no-machine --ranks $r -o "$tmp/c$r.json" -- "$tmp/app" 100000 > "$tmp/c$r.log"
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
# The processor time of the run's process tree (both ranks under valgrind, each well over 0.1 s of CPU).
assert two["run"]["cpu_seconds"] > 0.2 and one["run"]["cpu_seconds"] > 0.1, (one["run"], two["run"])
PY
    # The cost of the small run against the larger one, in core-seconds and in processor time.
    "$bin" scale "$tmp/c1.json" --evaluate "$tmp/c2.json" > "$tmp/cg-eval.txt" || fail "scale --evaluate"
    grep -q '^profiling cost in processor time: small runs .* CPU-s, target run .* CPU-s, ratio ' \
        "$tmp/cg-eval.txt" || fail "processor-time cost: $(tail -3 "$tmp/cg-eval.txt")"
    "$bin" validate "$tmp/c2.json" | grep -q 'roofcast profile' || fail "validate cachegrind"
else
    skip_part "valgrind is not installed: the cachegrind part was not run"
fi

# roofcast scale reads the profiles unchanged (two points: the fit is noted as thin, not refused).
"$bin" profile --backend time --ranks 2 --param ranks=4 -o "$tmp/t4.json" -- "$tmp/app" 100000 > /dev/null
"$bin" scale "$tmp/t1.json" "$tmp/t2.json" "$tmp/t4.json" > "$tmp/scale.txt" || fail "scale: $(cat "$tmp/scale.txt")"
grep -q 'main->heavy' "$tmp/scale.txt" || fail "scale lacks main->heavy: $(cat "$tmp/scale.txt")"
# The regions with declared flops and bytes on the roofline of a machine, with the mixed model's verdict.
"$bin" plot "$tmp/t2.json" --machine "$src/data/machines/example-caches.yaml" -o "$tmp/t2.svg" > "$tmp/plot.txt"
grep -q '^main->heavy .*-bound at .*(flops declared, bytes declared)' "$tmp/plot.txt" || fail "verdict: $(cat "$tmp/plot.txt")"
grep -q 'not placed: main: flops and bytes unknown' "$tmp/plot.txt" || fail "omitted region"
grep -q 'main-&gt;heavy' "$tmp/t2.svg" || fail "region not in the chart"
"$bin" report "$tmp/t2.json" --machine "$src/data/machines/example-caches.yaml" -o "$tmp/rep" > /dev/null
grep -q 'main-&gt;heavy' "$tmp/rep/index.html" || fail "region not in the report"

# A TAU directory (two ranks, TIME and PAPI_L1_DCM) imported, validated and read by scale.
for r in 0 1; do
    mkdir -p "$tmp/tau/MULTI__TIME" "$tmp/tau/MULTI__PAPI_L1_DCM"
    printf '2 templated_functions_MULTI_TIME\n# Name Calls Subrs Excl Incl ProfileCalls #\n"main" 1 1 100 3000 0 GROUP="TAU_DEFAULT"\n"main => dot" 5 0 2900 2900 0 GROUP="TAU_CALLPATH"\n0 aggregates\n' \
        > "$tmp/tau/MULTI__TIME/profile.$r.0.0"
    printf '1 templated_functions_MULTI_PAPI_L1_DCM\n# Name Calls Subrs Excl Incl ProfileCalls\n"main => dot" 5 0 %d %d 0 GROUP="TAU_CALLPATH"\n' \
        $((1000 + r)) $((1000 + r)) > "$tmp/tau/MULTI__PAPI_L1_DCM/profile.$r.0.0"
done
"$bin" profile --import-tau "$tmp/tau" -o "$tmp/tau.json" > /dev/null
"$bin" validate "$tmp/tau.json" | grep -q 'roofcast profile' || fail "validate tau"
python3 - "$tmp/tau.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
f = {x["name"]: x["metrics"] for x in d["functions"]}
assert d["backend"] == "tau" and d["parameters"] == {"ranks": 2}, d
assert f["main->dot"]["PAPI_L1_DCM"]["per_rank"] == [[1000, 1001]], f["main->dot"]
assert abs(f["main->dot"]["time"]["per_rank"][0][0] - 0.0029) < 1e-12, f["main->dot"]["time"]
PY
echo "ok"
end_test
