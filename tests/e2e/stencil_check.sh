#!/usr/bin/env bash
# End to end: roofcast stencil --check compares the deep-halo runner's field with a serial reference:
# bitwise equal for k = 1..4 at 1, 2 and 3 ranks (uneven slabs, and a 3-D process grid), Himeno's gosa
# within its stated tolerance. Ranks are oversubscribed on small machines; skips without mpirun or without
# the runner (CMake found no MPI).
set -uo pipefail
source "$(dirname "$0")/lib/setup.sh" "$@"
command -v mpirun >/dev/null || { echo "skipped: no mpirun on PATH"; exit 77; }
if ! "$roofcast" stencil --no-machine --kernel jacobi7 --grid 6x6x6 --steps 1 --reps 1 >"$tmp/probe.txt" 2>&1; then
    if grep -q "roofcast-stencil was not found" "$tmp/probe.txt"; then
        echo "skipped: $(cat "$tmp/probe.txt")"
        exit 77
    fi
    echo "a one-rank run failed:"; cat "$tmp/probe.txt"; exit 1
fi
# grid NXxNYxNZ: 14x12x15 splits z into 8+7 (2 ranks) and 5+5+5 (3 ranks); 15x12x14 with --decomp 3d puts
# the 3 ranks along x (5+5+5), so that the halo messages run along the contiguous dimension too; 4 ranks
# with --decomp 3d split z and x (8+7 by 7+7), with edge messages.
run() { # kernel ranks decomp grid
    local out="$tmp/$1-$2-$3.json"
    if ! "$roofcast" stencil --no-machine --kernel "$1" --ranks "$2" --decomp "$3" --grid "$4" --sweep-k 1..4 --steps 5 \
        --reps 1 --check --json >"$out" 2>"$tmp/err.txt"; then
        echo "FAIL $*: $(cat "$tmp/err.txt")"; fail=1; return
    fi
    python3 - "$out" "$1" "$*" <<'PY' || fail=1
import json, sys
j = json.load(open(sys.argv[1]))
ks = [r["k"] for r in j["sweep"]]
assert ks == [1, 2, 3, 4], (sys.argv[3], ks)
for r in j["sweep"]:
    c = r["check"]
    assert c["bitwise_equal"] and c["points_differing"] == 0, (sys.argv[3], r["k"], c)
    if sys.argv[2] == "himeno":
        assert c["gosa_within_tolerance"] and c["gosa_relative_difference"] <= c["gosa_tolerance"], c
        assert c["gosa"] > 0
print("ok", sys.argv[3], "process grid", j["process_grid"])
PY
}
for kernel in jacobi7 himeno; do
    run $kernel 1 z 14x12x15
    run $kernel 2 z 14x12x15
    run $kernel 3 z 14x12x15
    run $kernel 3 3d 15x12x14
    run $kernel 4 3d 14x12x15 # 2 x 2 process grid: edge messages too
done
# --k auto: the model picks k (example machine, entered MPI figures), then the run is checked.
if "$roofcast" stencil --kernel jacobi7 --ranks 2 --grid 14x12x15 --k auto --steps 5 --reps 1 --check --json \
    --machine "$2/data/machines/example-caches.yaml" --alpha 1e-6 --beta 5 >"$tmp/auto.json" 2>"$tmp/err.txt"; then
    python3 - "$tmp/auto.json" <<'PY' || fail=1
import json, sys
j = json.load(open(sys.argv[1]))
assert len(j["sweep"]) == 1 and j["sweep"][0]["k"] == j["best_predicted_k"] >= 1, j["sweep"]
assert j["sweep"][0]["check"]["bitwise_equal"], j["sweep"][0]["check"]
assert any("--k auto chose k" in s for s in j["model_sources"]), j["model_sources"]
print("ok --k auto chose", j["best_predicted_k"])
PY
else
    echo "FAIL --k auto: $(cat "$tmp/err.txt")"; fail=1
fi
exit $fail
