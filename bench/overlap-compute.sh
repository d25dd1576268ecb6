#!/usr/bin/env bash
# How far arithmetic hides behind memory and cache transfers when a loop streams many rows: the mixed
# family's members (n reused rows, Q extra multiply-adds) beside the overlap calibration loop with the
# same n and Q, in one process (roofcast-overlap-compute; prints figures, not a test). docs/models.md,
# "What one exponent misses", reads these columns: overlap_ns and family_ns per iteration (their ratio
# shows whether the overlap loop stands in for the family), L1_ns the same loop with its data in L1
# (the arithmetic alone), added_ns what the multiply-adds add to the loop without them, hidden the share
# of the arithmetic hidden behind the transfers.
# Usage: bash bench/overlap-compute.sh [build dir (default build/release)] [threads (default: every CPU)]
set -euo pipefail
source "$(dirname "$0")/lib/host.sh"
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build/release}
threads=${2:-$(nproc)}
bin=$build/roofcast-overlap-compute
host_line
[[ -x $bin ]] || { echo "no $bin: build it first (cmake --build --preset release)" >&2; exit 1; }
l2=$(getconf LEVEL2_CACHE_SIZE 2>/dev/null || echo 0)
[[ $l2 -gt 0 ]] || l2=$(($(cat /sys/devices/system/cpu/cpu0/cache/index2/size | tr -d K) * 1024))
mem=$((256 * 1024 * 1024))
echo "threads $threads, L2 $((l2 / 1024)) KiB per core, arrays of $((mem / 2 / 1024 / 1024)) MiB each; times per iteration, best epoch"
OMP_PROC_BIND=close OMP_PLACES=cores "$bin" "$threads" "$l2" "$mem"
