#!/usr/bin/env bash
# End to end: bad options of `roofcast machine` fail fast with one clear line, a non-zero exit,
# and no output file left behind; --no-mpi skips the MPI ping-pong and says so.
set -uo pipefail
source "$(dirname "$0")/lib/setup.sh" "$@"

expect_error machine "expected one of load, store, copy, triad, update, copy_nt, triad_nt" --quick --kernels load,daxpy -o "$tmp/a.yaml"
expect_error machine "unknown ISA 'neon'" --quick --isa neon -o "$tmp/b.yaml"
# --threads has one meaning and one wording on every subcommand: 0 is every core, counts are bounded.
expect_error machine "expected 0 (every core) or a thread count from 1 to" --quick --threads 1,x -o "$tmp/c.yaml"
expect_error machine "--oversubscribe allows more" --quick --threads 1,100000 -o "$tmp/c2.yaml"
expect_error machine "--max-size" --quick --max-size 12 -o "$tmp/d.yaml"
expect_error machine "--max-size" --quick --max-size lots -o "$tmp/e.yaml"
expect_error machine "--max-size" --quick --max-size 100TiB -o "$tmp/f.yaml"
expect_error machine "does not exist or is not writable" --quick -o "$tmp/missing/dir/m.yaml"
left=$(find "$tmp" -type f | wc -l)
if [[ $left -ne 0 ]]; then echo "files left behind:"; find "$tmp" -type f; fail=1; fi

# --no-mpi: a small run writes no mpi section and says why.
mkdir -p "$tmp/nompi"
if ! "$roofcast" machine --quick --no-mpi --kernels load --threads 1 --isa scalar --max-size 1MiB \
    -o "$tmp/nompi/m.yaml" >/dev/null; then
    echo "--no-mpi run failed"
    fail=1
elif grep -q "^mpi:" "$tmp/nompi/m.yaml" || ! grep -q "MPI: not measured (switched off for this run)" "$tmp/nompi/m.yaml"; then
    echo "--no-mpi: unexpected mpi section or missing note"
    fail=1
fi
exit $fail
