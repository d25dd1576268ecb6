#!/usr/bin/env bash
# A stand-in for Slurm's srun in the tests: `srun [options] -n N PROGRAM ARGS...` starts N copies of the
# program with SLURM_PROCID (0..N-1) and SLURM_NTASKS set, as srun does for its tasks, waits for all and exits
# with the first non-zero status. Options before -n (such as -N 2) are accepted and ignored.
set -uo pipefail
n=1
while [[ $# -gt 0 ]]; do
    case $1 in
    -n | --ntasks) n=$2; shift 2; break ;;
    -N | --nodes) shift 2 ;;
    *) shift ;;
    esac
done
pids=()
for ((i = 0; i < n; i++)); do
    SLURM_PROCID=$i SLURM_NTASKS=$n "$@" &
    pids+=($!)
done
status=0
for p in "${pids[@]}"; do
    wait "$p" || { rc=$?; [[ $status -ne 0 ]] || status=$rc; }
done
exit $status
