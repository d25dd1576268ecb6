#!/usr/bin/env bash
# End to end: bad input of `roofcast stencil` fails before anything runs, with one error line and a
# non-zero exit: a halo wider than the local blocks (naming the limit), blocks too thin for any halo,
# k < 1, an unknown kernel or decomposition, a bad grid, a grid too large for this host's memory, --k auto
# without a machine, mpirun or the runner missing.
set -uo pipefail
source "$(dirname "$0")/lib/setup.sh" "$@"

expect_error stencil "the halo width k*r = 3 must be smaller than the smallest local extent 3" \
    --kernel jacobi7 --grid 12x12x12 --ranks 4 --k 3
expect_error stencil "use k <= 2" --kernel jacobi7 --grid 12x12x12 --ranks 4 --k 3 --no-machine
expect_error stencil "the halo width k*r = 4" --kernel himeno --grid 12x12x12 --ranks 4 --sweep-k 1..4 --no-machine
expect_error stencil "too thin for a halo" --kernel jacobi7 --grid 8x8x8 --ranks 9 --decomp z --no-machine
expect_error stencil "expected k >= 1" --kernel jacobi7 --grid 8x8x8 --k 0 --no-machine
# k beyond the steps (or 1024) is refused at once, not evaluated: one rank has no halo to bound it.
expect_error stencil "expected k from 1 to 20" --kernel jacobi7 --grid 100x100x100 --simulate \
    --machine "$src/data/machines/example-caches.yaml" --alpha 1e-6 --beta 10 --sweep-k 2000000000
expect_error stencil "expected k from 1 to 1024" --kernel jacobi7 --grid 100x100x100 --steps 5000 --k 2000 --no-machine
expect_error stencil "expected k >= 1" --kernel jacobi7 --grid 8x8x8 --k -2 --no-machine
expect_error stencil "expected jacobi7 or himeno" --kernel heat5 --grid 8x8x8 --no-machine
expect_error stencil "expected z or 3d" --kernel jacobi7 --grid 8x8x8 --decomp 2d --no-machine
expect_error stencil "--grid" --kernel jacobi7 --grid 8x8 --no-machine
expect_error stencil "--grid" --kernel jacobi7 --grid 8x2x8 --no-machine
expect_error stencil "--sweep-k" --kernel jacobi7 --grid 8x8x8 --sweep-k 1..0 --no-machine
expect_error stencil "--k auto needs a machine file" --kernel jacobi7 --grid 8x8x8 --k auto --no-machine
expect_error stencil "--ranks" --kernel jacobi7 --grid 8x8x8 --ranks 0 --no-machine
expect_error stencil "mpi.alpha_s" --kernel jacobi7 --grid 64x64x64 --ranks 8 --simulate \
    --machine "$src/data/machines/example-caches.yaml"
# A grid whose blocks cannot fit in this host's memory is refused before anything starts (mpirun absent
# or not), naming what it needs and what there is; with --mpirun-args sending ranks to other hosts, the
# largest rank alone is weighed.
expect_error stencil "available on this host (MemAvailable)" --kernel jacobi7 --grid 100000x100000x100000 --ranks 2
expect_error stencil "of memory for the ranks (two fields of each block with its halo of 2)" --kernel jacobi7 --grid 100000x100000x100000 --ranks 2
expect_error stencil "for its largest rank" --kernel jacobi7 --grid 100000x100000x100000 --ranks 2 \
    --mpirun-args "--hostfile $tmp/none"
# mpirun missing (PATH without it) and the runner missing.
mkdir -p "$tmp/empty"
# (ROOFCAST_STENCIL names some executable, so that the check does not depend on an MPI build.)
out=$(env PATH="$tmp/empty" ROOFCAST_STENCIL="$(type -P true)" "$roofcast" stencil --no-machine --kernel jacobi7 --grid 8x8x8 2>&1 >/dev/null)
rc=$?
if [[ $rc -eq 0 || $(grep -c "roofcast: error: stencil: no mpirun on PATH" <<<"$out") -ne 1 ]]; then
    echo "mpirun missing: expected one error line and a non-zero exit, got $rc: $out"
    fail=1
fi
ROOFCAST_STENCIL="$tmp/empty/none" expect_error stencil "roofcast-stencil was not found" --kernel jacobi7 --grid 8x8x8 --no-machine
exit $fail
