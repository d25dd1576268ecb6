#!/usr/bin/env bash
# End-to-end: `roofcast machine -o FILE` killed with SIGINT or SIGKILL at random moments while it runs, 50 times, leaves FILE
# as it was (the old machine file, or absent when there was none) or as a complete new machine file, never a
# partial one. The run is the shortest `machine` allows (one kernel, scalar ceilings, one thread, a 1 MiB
# sweep, no MPI, no stream capacity: about a second on 2 cores), so 50 runs fit CI; half the kills land
# anywhere in a run, half in its last fifth, where the file is written. A kill after the run ended still
# checks the file (the new one, complete).
# Usage: bash machine_output_safety.sh <roofcast-binary> <source-dir>
set -euo pipefail
source "$(dirname "$0")/lib/setup.sh" "$@"
source "$(dirname "$0")/lib/kill.sh"
fail() { echo "FAIL: $*"; exit 1; }

fast=(machine --quick --kernels load --isa scalar --threads 1 --max-size 1MiB --no-mpi --no-stream-capacity)
"$bin" "${fast[@]}" -o "$work/ref.yaml" >/dev/null 2>&1 || fail "the short machine run failed"
"$bin" validate "$work/ref.yaml" >/dev/null || fail "the short machine run wrote a file that does not validate"
# The writer's last line: a file that ends with it and validates is complete.
last=$(tail -n 1 "$work/ref.yaml")
cp "$src/data/machines/example-published.yaml" "$work/old.yaml"
# The shortest of three runs: the first run of a process may pay for what later ones find cached.
run_ms=$(for _ in 1 2 3; do ms_of "$bin" "${fast[@]}" -o "$work/timing.yaml"; done | sort -n | head -1)

olds=0 news=0 absent=0 delivered=0 leftovers=0 i=0
# Rounds go on until 50 signals have reached a running `machine` (a kill after the run ended does not count).
while ((delivered < 50)); do
    i=$((i + 1))
    ((i <= 300)) || fail "only $delivered of 300 kills reached a running machine -o"
    rm -f "$work/m.yaml"
    had_old=$((i % 5 != 0)) # every fifth round starts without a file
    ((had_old)) && cp "$work/old.yaml" "$work/m.yaml"
    sig=KILL
    ((i % 2)) && sig=INT
    "$bin" "${fast[@]}" -o "$work/m.yaml" >/dev/null 2>&1 &
    pid=$!
    if ((i % 4 < 2)); then random_sleep "$run_ms"; else random_sleep "$run_ms" $((run_ms * 8 / 10)); fi
    kill -s "$sig" "$pid" 2>/dev/null && delivered=$((delivered + 1))
    wait "$pid" 2>/dev/null || true
    if [[ ! -e "$work/m.yaml" ]]; then
        ((had_old)) && fail "SIG$sig (round $i) removed the old machine file"
        absent=$((absent + 1))
    elif ((had_old)) && cmp -s "$work/m.yaml" "$work/old.yaml"; then
        olds=$((olds + 1))
    elif [[ $(tail -n 1 "$work/m.yaml") == "$last" ]] && "$bin" validate "$work/m.yaml" >/dev/null 2>&1; then
        news=$((news + 1))
    else
        tail -n 3 "$work/m.yaml"
        fail "machine -o killed with SIG$sig (round $i) left a partial file ($(wc -c <"$work/m.yaml") bytes)"
    fi
    # A run killed by SIGKILL leaves its hidden temporary beside the target (never the target); the next
    # write removes those of processes that are gone.
    (($(find "$work" -maxdepth 1 -name '.m.yaml.tmp.*' | wc -l) > 0)) && leftovers=$((leftovers + 1))
done
echo "ok: $delivered machine runs killed while running in $i rounds (run ${run_ms} ms) left the old" \
    "file ($olds), no file where there was none ($absent) or a complete new file ($news);" \
    "a hidden temporary of a killed run beside it after $leftovers rounds"
"$bin" "${fast[@]}" -o "$work/m.yaml" >/dev/null 2>&1 || fail "the machine run after the kills failed"
left=$(find "$work" -maxdepth 1 -name '.m.yaml.*')
[[ -z $left ]] || fail "the next run left the killed runs' temporaries: $left"
echo "ok: the next run removed them"
