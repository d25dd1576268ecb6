#!/usr/bin/env bash
# End to end: a command that launches a program, sent SIGTERM, SIGINT or SIGHUP from outside (with `kill`,
# as a batch system does at a job's time limit, not through a terminal's process group), forwards it to the
# program's process group, waits for it, removes its temporary directory and exits 128 + the signal with one
# line: `profile --backend time` and `threads --command`, on a program that records its own pid and its
# child's and waits; one program that ignores the signal is killed after the grace. `threads --timeout`
# kills the program's children with it. Started in the background by this non-interactive script, roofcast
# begins with SIGINT ignored (POSIX job control), the case of a SIGINT "sent on its own". Every wait is
# bounded, so the test cannot hang.
set -uo pipefail
source "$(dirname "$0")/lib/setup.sh" "$@"

export TMPDIR="$tmp/tmpdir"
mkdir -p "$TMPDIR"
# The program: `prog.sh PIDFILE [ignore|run] [N]` starts a child, writes "own-pid child-pid" to PIDFILE
# and waits
# (with `ignore`, deaf to SIGINT, SIGTERM and SIGHUP, as a program that does not stop when asked).
cat >"$tmp/prog.sh" <<'PROG'
#!/bin/sh
[ "${2:-}" = ignore ] && trap '' INT TERM HUP
sleep 60 &
echo "$$ $!" >"$1.part" && mv "$1.part" "$1"
wait
PROG
chmod +x "$tmp/prog.sh"
cat >"$tmp/machine.yaml" <<'YAML'
format_version: 1
name: tiny
compute: {peak_gflops: {double: 10}}
topology: {cores: 2, hw_threads: 2, caches: [{name: L1, size_bytes: 32KiB}, {name: L2, size_bytes: 512KiB}]}
levels: [{name: L1, bandwidth_gbs: 100}, {name: MEM, bandwidth_gbs: 10}]
YAML

# Whether process $1 runs (a zombie, waiting for a parent that does not reap it, does not).
running() {
    [[ -r /proc/$1/stat ]] || return 1
    local state
    state=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)
    [[ -n $state && $state != Z ]]
}
# Waits up to $2 seconds for process $1 to end; false when it still runs.
ended_within() {
    local i
    for ((i = 0; i < $2 * 10; i++)); do
        running "$1" || return 0
        sleep 0.1
    done
    return 1
}

# run_case NAME SIGNAL EXPECTED-STATUS ROOFCAST-ARGS... (the program's pid file is $tmp/NAME.pids)
run_case() {
    local name=$1 sig=$2 want=$3
    shift 3
    local pids="$tmp/$name.pids"
    "$roofcast" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" &
    local rf=$! i
    for ((i = 0; i < 300; i++)); do
        [[ -s $pids ]] && break
        sleep 0.1
    done
    if [[ ! -s $pids ]]; then
        echo "$name: the program did not start within 30 s"; kill -KILL "$rf"; wait "$rf"; fail=1; return
    fi
    kill "-$sig" "$rf"
    # The grace before SIGKILL is 10 s; 40 s is far beyond what a stopped run needs.
    if ! ended_within "$rf" 40; then
        echo "$name: roofcast still runs 40 s after SIG$sig"; kill -KILL "$rf"; wait "$rf"; fail=1; return
    fi
    wait "$rf"
    local rc=$?
    [[ $rc -eq $want ]] || { echo "$name: exit status $rc, expected $want"; fail=1; }
    local lines
    lines=$(grep -c . "$tmp/$name.err")
    if [[ $lines -lt 1 ]] || ! tail -n1 "$tmp/$name.err" | grep -q "^roofcast: stopped by SIG$sig"; then
        echo "$name: expected the last stderr line 'roofcast: stopped by SIG$sig ...':"; cat "$tmp/$name.err"
        fail=1
    fi
    if [[ $(grep -c "^roofcast: " "$tmp/$name.err") -ne 1 ]]; then
        echo "$name: more than one roofcast line:"; cat "$tmp/$name.err"; fail=1
    fi
    local p
    for p in $(cat "$pids"); do
        # The group was killed before roofcast exited; an orphaned child is reaped by init meanwhile.
        if ! ended_within "$p" 5; then
            echo "$name: process $p of the program still runs ($(tr '\0' ' ' 2>/dev/null <"/proc/$p/cmdline"))"
            kill -KILL "$p"
            fail=1
        fi
    done
    local left
    left=$(ls -A "$TMPDIR")
    [[ -z $left ]] || { echo "$name: left in TMPDIR: $left"; rm -rf "${TMPDIR:?}"/*; fail=1; }
    [[ ! -e $tmp/$name.json ]] || { echo "$name: wrote $tmp/$name.json"; fail=1; }
}

for s in TERM:143 INT:130 HUP:129; do
    sig=${s%%:*} want=${s##*:}
    run_case "profile-$sig" "$sig" "$want" profile --backend time -o "$tmp/profile-$sig.json" -- \
        "$tmp/prog.sh" "$tmp/profile-$sig.pids"
done
for s in TERM:143 INT:130; do
    sig=${s%%:*} want=${s##*:}
    run_case "threads-$sig" "$sig" "$want" threads --command "$tmp/prog.sh $tmp/threads-$sig.pids run {n}" \
        --sizes 1000,2000,4000 --threads 1,2 --machine "$tmp/machine.yaml" --json -o "$tmp/threads-$sig.svg"
done
# A program deaf to the signal is killed with its group after the grace.
run_case "profile-deaf" TERM 143 profile --backend time -o "$tmp/profile-deaf.json" -- \
    "$tmp/prog.sh" "$tmp/profile-deaf.pids" ignore

# threads --timeout: the program's child goes with it (the whole group is killed), and the private log
# directory is removed.
"$roofcast" threads --command "$tmp/prog.sh $tmp/timeout.pids run {n}" --sizes 1000,2000,4000 --threads 1 \
    --machine "$tmp/machine.yaml" --timeout 0.5 >/dev/null 2>"$tmp/timeout.err" &
rf=$!
if ! ended_within "$rf" 60; then
    echo "threads --timeout: still runs after 60 s"; kill -KILL "$rf"; fail=1
fi
wait "$rf"
if [[ -s $tmp/timeout.pids ]]; then
    for p in $(cat "$tmp/timeout.pids"); do
        ended_within "$p" 5 || { echo "threads --timeout: process $p still runs"; kill -KILL "$p"; fail=1; }
    done
else
    echo "threads --timeout: the program never started: $(cat "$tmp/timeout.err")"; fail=1
fi
left=$(ls -A "$TMPDIR")
[[ -z $left ]] || { echo "threads --timeout: left in TMPDIR: $left"; fail=1; }
exit $fail
