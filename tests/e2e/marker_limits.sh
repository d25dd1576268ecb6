#!/usr/bin/env bash
# The marker library past its bounds, each case a program of its own (roofcast-marker-driver) under a time
# limit: a million nested regions, 150,000 distinct regions, forks while threads are inside the library,
# huge and control-character names, declared work past the bound on a run's events. Each finishes in seconds,
# says each bound once on stderr, and leaves a file that `roofcast profile` reads (the profile it writes
# passes `roofcast validate`). CTest's TIMEOUT for this test (tests/CMakeLists.txt) bounds the whole.
# Usage: bash marker_limits.sh <roofcast binary> <source dir>
set -uo pipefail
source "$(dirname "$0")/lib/setup.sh" "$@"
build=$(cd "$(dirname "$bin")" && pwd)
driver=$build/roofcast-marker-driver
[[ -x $driver ]] || { echo "FAIL: $driver not built (cmake --build --target roofcast-marker-driver)"; exit 1; }
command -v python3 > /dev/null || { echo "SKIP: python3 not found (reads the marker files)"; exit 77; }
unset ROOFCAST_MARKER_OUTPUT ROOFCAST_MARKER_PAPI OMPI_COMM_WORLD_RANK PMIX_RANK PMI_RANK SLURM_PROCID
limit=60 # seconds per case: each takes under 3 s on a loaded 2-vCPU VM, a hang takes forever

# run NAME ARGS...: the driver with ROOFCAST_MARKER_OUTPUT=$tmp/NAME under the time limit; its stderr in
# $tmp/NAME.err. A case past the limit or failing is a failure (the group is killed, children included).
run() {
    local name=$1
    shift
    ROOFCAST_MARKER_OUTPUT=$tmp/$name timeout --kill-after=5 $limit "$driver" "$@" > "$tmp/$name.out" 2> "$tmp/$name.err"
    local rc=$?
    if [[ $rc -eq 124 || $rc -eq 137 ]]; then
        echo "FAIL: $name: still running after $limit s"
        fail=1
    elif [[ $rc -ne 0 ]]; then
        echo "FAIL: $name: exit $rc"
        cat "$tmp/$name.err"
        fail=1
    fi
}

# check NAME PYTHON: runs the Python expression block on `d` (the case's one marker file) and `err` (its
# stderr lines); an assertion that fails is the case's failure.
check() {
    python3 - "$tmp/$1" "$tmp/$1.err" "$2" << 'PY' || fail=1
import glob, json, sys
files = glob.glob(sys.argv[1] + "/marker.*.json")
assert len(files) == 1, f"{sys.argv[1]}: expected one marker file, found {files}"
d = json.load(open(files[0]))
err = open(sys.argv[2], encoding="utf-8", errors="replace").read().splitlines()
try:
    exec(sys.argv[3])
except AssertionError as e:
    print(f"FAIL: {sys.argv[1]}: {e}")
    sys.exit(1)
PY
}

run deep deep 1000000
check deep '
assert len(err) == 1 and "nested deeper than 1024 levels" in err[0], err
assert len(d["regions"]) == 1024, len(d["regions"])
assert d["regions"][-1]["calls"] == 1 and d["regions"][-1]["flops"] == 1.0
assert d["warnings"] == ["998976 region begins nested deeper than 1024 levels (thread 0) were counted but not recorded: their time and work are in the enclosing region'"'"'s"], d["warnings"]
'

run distinct distinct 150000
check distinct '
assert len(err) == 1 and "call paths past the first 100000" in err[0], err
assert len(d["regions"]) == 100000, len(d["regions"])
assert d["warnings"][0].startswith("50001 region begins on new call paths"), d["warnings"]
'

run fork fork 100
check fork '
assert err == [], err
calls = sum(r["calls"] for r in d["regions"] if r["name"] == "work")
expected = int(open(sys.argv[1] + ".out").read().split(":")[1])
assert calls == expected, (calls, expected)
assert not any("child" in r["path"] for r in d["regions"]), "a child recorded into the parent"
'

run names names 200000
check names '
assert err == [], err
assert [len(r["name"]) for r in d["regions"]] == [256, 25], [len(r["name"]) for r in d["regions"]]
assert len(d["warnings"]) == 101 and d["warnings"][-1] == "199901 further warnings not recorded", d["warnings"][-3:]
assert not any(ord(c) < 32 or ord(c) == 127 for w in d["warnings"] for c in w), "raw control characters"
'

run overflow work-overflow
check overflow '
big = next(r for r in d["regions"] if r["path"] == "big")
shared = next(r for r in d["regions"] if r["path"] == "shared")
assert big["flops"] == 6e29 and shared["flops"] == 1e30 and shared["bytes"] == 1e30, (big, shared)
assert len(d["warnings"]) == 3, d["warnings"]
'

# roofcast profile reads what the library wrote past its bounds, and what it writes is valid.
for case in "deep 1000000" "distinct 150000" "work-overflow"; do
    name=${case%% *}
    # shellcheck disable=SC2086 # the case's words are the driver's arguments
    if ! timeout --kill-after=5 120 "$bin" profile --backend time -o "$tmp/$name.json" -- "$driver" $case \
        > "$tmp/$name.profile.log" 2>&1; then
        echo "FAIL: roofcast profile of '$case'"
        tail -3 "$tmp/$name.profile.log"
        fail=1
    elif ! "$bin" validate "$tmp/$name.json" > "$tmp/$name.validate.log" 2>&1; then
        echo "FAIL: roofcast validate of the profile of '$case'"
        tail -3 "$tmp/$name.validate.log"
        fail=1
    fi
done

[[ $fail -eq 0 ]] && echo "PASS: marker_limits"
exit $fail
