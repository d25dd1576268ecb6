#!/usr/bin/env bash
# End-to-end test of the instrumented example applications at 2 MPI ranks: each rank writes a marker file
# with the expected regions and declared work (counted independently here from the grid), the CG residual
# falls (to the 1-rank residual), and the stencil's checksum equals the 1-rank result bit for bit.
# Usage: bash marker_examples_mpi.sh <roofcast binary> <source dir>
set -euo pipefail
source "$(dirname "$0")/lib/setup.sh" "$@"
build=$(cd "$(dirname "$bin")" && pwd)
cg=$build/roofcast-example-cg
stencil=$build/roofcast-example-stencil
command -v mpirun > /dev/null || { echo "SKIP: mpirun not found"; exit 77; }
[[ -x $cg && -x $stencil ]] || { echo "SKIP: the examples were not built (CMake found no MPI)"; exit 77; }
command -v python3 > /dev/null || { echo "SKIP: python3 not found"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }
unset ROOFCAST_MARKER_OUTPUT ROOFCAST_MARKER_PAPI
# Open MPI refuses to start as root unless told it is intended (CI containers run as root).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_base_warn_component_unused=0
run() { timeout --kill-after=5 120 mpirun --oversubscribe --bind-to none -np "$@"; }

n=13 # planes split 7 + 6 at 2 ranks: the uneven case
iters=20
ROOFCAST_MARKER_OUTPUT=$tmp/cg run 2 "$cg" --n $n --iters $iters > "$tmp/cg.txt" 2>&1 || { cat "$tmp/cg.txt"; fail "cg at 2 ranks"; }
ROOFCAST_MARKER_OUTPUT=$tmp/st2 run 2 "$stencil" --n $n --iters $iters > "$tmp/st2.txt" 2>&1 || { cat "$tmp/st2.txt"; fail "stencil at 2 ranks"; }
run 1 "$stencil" --n $n --iters $iters > "$tmp/st1.txt" 2>&1 || { cat "$tmp/st1.txt"; fail "stencil at 1 rank"; }
run 1 "$cg" --n $n --iters $iters > "$tmp/cg1.txt" 2>&1 || { cat "$tmp/cg1.txt"; fail "cg at 1 rank"; }
sum1=$(sed -n 's/^checksum: //p' "$tmp/st1.txt")
sum2=$(sed -n 's/^checksum: //p' "$tmp/st2.txt")
[[ -n $sum1 && $sum1 == "$sum2" ]] || fail "stencil checksum at 2 ranks ($sum2) differs from 1 rank ($sum1)"
[[ $(find "$tmp" -name 'marker.*' | wc -l) -eq 4 ]] || fail "expected 4 marker files (1-rank run was inactive)"

python3 - "$tmp" $n $iters <<'PY'
import glob, json, re, sys
tmp, n, iters = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])

def slab(rank, size):  # the examples' z-slab split (examples/slab.hpp)
    base, extra = divmod(n, size)
    return base + (1 if rank < extra else 0), rank * base + min(rank, extra)

def files(d):
    out = {}
    for f in glob.glob(f"{tmp}/{d}/marker.*.json"):
        doc = json.load(open(f))
        assert doc["format"] == "roofcast-marker" and doc["ranks"] == 2, doc
        assert doc["warnings"] == [], doc["warnings"]
        out[doc["rank"]] = {r["path"]: r for r in doc["regions"]}
    assert sorted(out) == [0, 1], out.keys()
    return out

text = open(f"{tmp}/cg.txt").read()
m = re.search(r"residual: initial (\S+) final (\S+)", text)
assert m, text
initial, final = float(m.group(1)), float(m.group(2))
assert final < 0.1 * initial, (initial, final)
# The same iterates at 1 rank: only the order of the dot products' sums differs.
m1 = re.search(r"residual: initial (\S+) final (\S+)", open(f"{tmp}/cg1.txt").read())
assert m1, "no residual at 1 rank"
assert float(m1.group(1)) == initial, (m1.group(1), initial)
assert abs(float(m1.group(2)) - final) <= 1e-5 * final, (m1.group(2), final)  # printed to 7 digits

for rank, regions in files("cg").items():
    assert {"setup", "cg", "cg->halo", "cg->spmv", "cg->dot", "cg->axpy"} <= set(regions), regions.keys()
    nz, z0 = slab(rank, 2)
    rows = nz * n * n
    # Non-zeros of the 7-point Laplacian rows this rank owns: the point and its neighbours inside the grid.
    nnz = sum(1 + (x > 0) + (x < n - 1) + (y > 0) + (y < n - 1) + (z > 0) + (z < n - 1)
              for z in range(z0, z0 + nz) for y in range(n) for x in range(n))
    spmv, dot, axpy = regions["cg->spmv"], regions["cg->dot"], regions["cg->axpy"]
    assert spmv["calls"] == iters and spmv["flops"] == 2 * nnz * iters, (spmv, nnz)
    assert dot["calls"] == 2 * iters + 1 and dot["flops"] == 2 * rows * dot["calls"], dot
    assert axpy["calls"] == 3 * iters and axpy["flops"] == 2 * rows * axpy["calls"], axpy
    assert axpy["bytes"] == 24 * rows * axpy["calls"], axpy
    assert regions["cg->halo"]["calls"] == iters and "flops" not in regions["cg->halo"]
    assert all(r["seconds"] > 0 for r in regions.values()), regions

for rank, regions in files("st2").items():
    assert {"jacobi", "jacobi->halo", "jacobi->sweep", "checksum"} <= set(regions), regions.keys()
    points = slab(rank, 2)[0] * n * n
    sweep = regions["jacobi->sweep"]
    assert sweep["calls"] == iters and sweep["flops"] == 7 * points * iters, sweep
    assert sweep["bytes"] == 16 * points * iters, sweep
PY
echo "ok: cg residual $(sed -n 's/^residual: //p' "$tmp/cg.txt"); stencil checksum $sum2 at 1 and 2 ranks"
