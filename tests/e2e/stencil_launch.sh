#!/usr/bin/env bash
# End to end, the launch of `roofcast stencil` under mpirun:
#  - a runner that fails is quoted by its own last line, not by the first line of mpirun's banner;
#  - sent SIGTERM or SIGINT from outside while its ranks run, roofcast stops mpirun and every rank (mpirun
#    runs in a process group of its own, to which roofcast forwards the signal), removes its private
#    directory and exits 143 or 130 with one line. Every wait is bounded.
# (A grid too large for this host's memory is refused before mpirun starts: tests/e2e/stencil_bad_input.sh.)
set -uo pipefail
source "$(dirname "$0")/lib/setup.sh" "$@"
command -v mpirun >/dev/null || { echo "skipped: no mpirun (scripts/install-deps.sh installs Open MPI)"; exit 77; }
runner=$(dirname "$roofcast")/roofcast-stencil
[[ -x $runner ]] || { echo "skipped: roofcast-stencil was not built (CMake found no MPI)"; exit 77; }

export TMPDIR="$tmp/tmpdir"
mkdir -p "$TMPDIR"

running() {
    [[ -r /proc/$1/stat ]] || return 1
    local state
    state=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)
    [[ -n $state && $state != Z ]]
}
ended_within() {
    local i
    for ((i = 0; i < $2 * 10; i++)); do
        running "$1" || return 0
        sleep 0.1
    done
    return 1
}
# The processes whose command line names this test's private temporary directory: mpirun and the ranks
# (the runner's --out lies there).
launched() {
    local d p
    for d in /proc/[0-9]*; do
        p=${d#/proc/}
        [[ $p == "$1" ]] && continue
        tr '\0' ' ' 2>/dev/null <"$d/cmdline" | grep -qF -- "--out $TMPDIR/" && echo "$p"
    done
}

# A runner that fails: the error line quotes what it printed last, past mpirun's banners.
cat >"$tmp/fake-runner" <<'SH'
#!/bin/sh
echo "fake-runner: cannot open the halo buffers (rank ${OMPI_COMM_WORLD_RANK:-0})" >&2
exit 3
SH
chmod +x "$tmp/fake-runner"
out=$(ROOFCAST_STENCIL="$tmp/fake-runner" "$roofcast" stencil --kernel jacobi7 --grid 16x16x16 --ranks 2 \
    --threads 1 2>&1 >/dev/null)
rc=$?
if [[ $rc -eq 0 || $(grep -c "roofcast: error:" <<<"$out") -ne 1 ]] ||
    ! grep -q "roofcast: error: stencil: mpirun exited with [0-9]*: fake-runner: cannot open the halo buffers" <<<"$out"; then
    echo "failing runner: expected one error line quoting its last line, got $rc: $out"; fail=1
fi
rm -rf "${TMPDIR:?}"/*

for s in TERM:143 INT:130; do
    sig=${s%%:*} want=${s##*:}
    "$roofcast" stencil --kernel jacobi7 --grid 64x64x128 --ranks 2 --steps 1000000 --reps 1 --threads 1 \
        --timeout 300 >"$tmp/out" 2>"$tmp/err" &
    rf=$!
    pids=() ranks=0
    for ((i = 0; i < 600; i++)); do
        mapfile -t pids < <(launched "$rf")
        ranks=0
        for p in "${pids[@]}"; do
            [[ $(tr '\0' '\n' 2>/dev/null <"/proc/$p/cmdline" | head -n1) == */roofcast-stencil ]] && ranks=$((ranks + 1))
        done
        ((ranks >= 2)) && break # mpirun's two ranks (mpirun itself is among the pids)
        running "$rf" || break
        sleep 0.1
    done
    if ((ranks < 2)); then
        echo "SIG$sig: mpirun and two ranks did not show within 60 s: $(cat "$tmp/err")"
        kill -KILL "$rf" 2>/dev/null; wait "$rf"; fail=1; continue
    fi
    sleep 1 # the ranks past MPI_Init
    kill "-$sig" "$rf"
    if ! ended_within "$rf" 60; then
        echo "SIG$sig: roofcast stencil still runs 60 s after the signal"; kill -KILL "$rf"; fail=1
    fi
    wait "$rf"
    rc=$?
    [[ $rc -eq $want ]] || { echo "SIG$sig: exit status $rc, expected $want: $(cat "$tmp/err")"; fail=1; }
    tail -n1 "$tmp/err" | grep -q "^roofcast: stopped by SIG$sig" ||
        { echo "SIG$sig: no 'roofcast: stopped by SIG$sig' line: $(cat "$tmp/err")"; fail=1; }
    for p in "${pids[@]}"; do
        if ! ended_within "$p" 10; then
            echo "SIG$sig: $(tr '\0' ' ' 2>/dev/null <"/proc/$p/cmdline") (pid $p) still runs"
            kill -KILL "$p"
            fail=1
        fi
    done
    left=$(ls -A "$TMPDIR" | grep roofcast-stencil)
    [[ -z $left ]] || { echo "SIG$sig: left in TMPDIR: $left"; fail=1; }
    rm -rf "${TMPDIR:?}"/*
done
[[ $fail -eq 0 ]] && echo "ok: SIGTERM and SIGINT stopped mpirun and its ranks, removed the directory, exit 143 and 130"
exit $fail
