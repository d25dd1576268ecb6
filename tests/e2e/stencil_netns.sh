#!/usr/bin/env bash
# End to end: ranks in network namespaces (scripts/netns-ranks.sh). The rank file places rank i in
# namespace i on its own core (every namespace's daemon sees the machine as a node of its own, and
# mpirun's default placement put every rank on core 0); launches finish (the daemons' shared-memory
# topology segment crashed one of them and hung 1 launch in 3 to 8, and their session directories, created
# at once under one /tmp, collided under load: twenty launches must all finish); the
# deep-halo runner's field through TCP is bitwise equal to the serial reference, started with --mpirun-args
# and through --launcher (mpirun with the namespaces' host and rank files as the cluster's launcher, as a
# user spans nodes); `profile --ranks 2` spans the namespaces through --launcher too. Skips unless root with
# mpirun, the runner and network namespaces.
set -uo pipefail
source "$(dirname "$0")/lib/setup.sh" "$@"
netns="$src/scripts/netns-ranks.sh"
[[ $(id -u) -eq 0 ]] || { echo "skipped: network namespaces need root"; exit 77; }
command -v mpirun >/dev/null || { echo "skipped: no mpirun on PATH"; exit 77; }
[[ -x "$(dirname "$roofcast")/roofcast-stencil" ]] || { echo "skipped: no roofcast-stencil (CMake found no MPI)"; exit 77; }
export TMPDIR=$tmp
if ! bash "$netns" start 2 >"$tmp/start.txt" 2>&1; then
    echo "skipped: $(tail -1 "$tmp/start.txt")"
    exit 77
fi
trap 'bash "$netns" stop 2 >/dev/null 2>&1; rm -rf "$tmp"' EXIT
cores=$(nproc)
if bash "$netns" mpirun-args 0 >/dev/null 2>"$tmp/err.txt" || ! grep -q "expected 1..200 ranks" "$tmp/err.txt"; then
    echo "FAIL mpirun-args 0: $(cat "$tmp/err.txt")"; fail=1
fi

# The rank file: rank i on host 10.77.0.(i+1), core i mod the cores; two cores per rank wrap the same way.
bash "$netns" mpirun-args 2 >/dev/null
printf 'rank 0=10.77.0.1 slot=0\nrank 1=10.77.0.2 slot=%d\n' $((1 % cores)) >"$tmp/want.txt"
diff "$tmp/want.txt" "$tmp/roofcast-netns-rankfile" || { echo "FAIL rank file"; fail=1; }
bash "$netns" mpirun-args 2 2 >/dev/null
printf 'rank 0=10.77.0.1 slot=0,%d\nrank 1=10.77.0.2 slot=%d,%d\n' $((1 % cores)) $((2 % cores)) $((3 % cores)) \
    >"$tmp/want2.txt"
[[ $cores -ge 2 ]] && { diff "$tmp/want2.txt" "$tmp/roofcast-netns-rankfile" || { echo "FAIL rank file, 2 cores per rank"; fail=1; }; }

margs=$(bash "$netns" mpirun-args 2)

# Where the ranks run: each prints its affinity list (taskset); with two cores they differ.
# shellcheck disable=SC2086
if timeout -k 5 60 mpirun --allow-run-as-root -np 2 $margs sh -c 'taskset -cp $$ | sed "s/.*: //"' \
    >"$tmp/aff.txt" 2>"$tmp/err.txt"; then
    sort -u "$tmp/aff.txt" >"$tmp/aff_u.txt"
    if [[ $cores -ge 2 && $(wc -l <"$tmp/aff_u.txt") -ne 2 ]]; then
        echo "FAIL both ranks on the same cores: $(tr '\n' ' ' <"$tmp/aff.txt")"; fail=1
    else
        echo "ok ranks bound to: $(tr '\n' ' ' <"$tmp/aff.txt")"
    fi
else
    echo "FAIL affinity launch: $(tail -3 "$tmp/err.txt")"; fail=1
fi

# Launches finish.
hung=0
for i in $(seq 1 20); do
    # shellcheck disable=SC2086
    timeout -k 5 30 mpirun --allow-run-as-root -np 2 $margs true >"$tmp/l.txt" 2>&1 || { hung=$((hung + 1)); tail -3 "$tmp/l.txt"; }
done
[[ $hung -eq 0 ]] && echo "ok 20 launches through the namespaces finished" || { echo "FAIL $hung of 20 launches did not finish"; fail=1; }

# The runner through TCP: bitwise equal to the serial reference at k = 1..3.
if "$roofcast" stencil --no-machine --kernel jacobi7 --ranks 2 --grid 14x12x15 --sweep-k 1..3 --steps 4 --reps 1 --check --json \
    --timeout 120 --mpirun-args "$margs" >"$tmp/s.json" 2>"$tmp/err.txt"; then
    python3 - "$tmp/s.json" <<'PY' || fail=1
import json, sys
j = json.load(open(sys.argv[1]))
assert [r["k"] for r in j["sweep"]] == [1, 2, 3], j["sweep"]
for r in j["sweep"]:
    assert r["check"]["bitwise_equal"] and r["check"]["points_differing"] == 0, (r["k"], r["check"])
print("ok runner through the namespaces, k = 1..3 bitwise equal")
PY
else
    echo "FAIL stencil through the namespaces: $(cat "$tmp/err.txt")"; fail=1
fi
# The same through --launcher: mpirun and the namespaces' host and rank files as the cluster's launcher.
if "$roofcast" stencil --no-machine --kernel jacobi7 --ranks 2 --grid 14x12x15 --k 2 --steps 4 --reps 1 --check --json \
    --timeout 120 --launcher "mpirun $margs" >"$tmp/l.json" 2>"$tmp/err.txt"; then
    python3 - "$tmp/l.json" <<'PY' || fail=1
import json, sys
j = json.load(open(sys.argv[1]))
assert [r["k"] for r in j["sweep"]] == [2], j["sweep"]
assert j["sweep"][0]["check"]["bitwise_equal"], j["sweep"][0]["check"]
print("ok stencil through --launcher across the namespaces, bitwise equal")
PY
else
    echo "FAIL stencil through --launcher: $(tail -3 "$tmp/err.txt")"; fail=1
fi
# profile --ranks 2 through --launcher: one rank in each namespace, each rank's marker regions gathered.
if command -v cc >/dev/null && cc -O1 -g -o "$tmp/app" "$src/tests/e2e/data/profile_app.c" 2>"$tmp/cc.txt"; then
    if "$roofcast" profile --backend time --ranks 2 --launcher "mpirun $margs" --timeout 120 -o "$tmp/p.json" \
        -- "$tmp/app" 100000 >"$tmp/p.log" 2>&1; then
        python3 - "$tmp/p.json" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
assert d["run"]["ranks"] == 2, d["run"]
heavy = {x["name"]: x for x in d["functions"]}["main->heavy"]["metrics"]
assert heavy["flops"]["per_rank"] == [[20 * 50000, 20 * 50000]], heavy["flops"]
print("ok profile --ranks 2 through --launcher across the namespaces")
PY
    else
        echo "FAIL profile through --launcher: $(tail -3 "$tmp/p.log")"; fail=1
    fi
else
    echo "FAIL cannot compile the profiled program: $(cat "$tmp/cc.txt")"; fail=1
fi
exit $fail
