#!/usr/bin/env bash
# Bad input to `roofcast profile`: each case one "roofcast: error:" line naming what is wrong, a non-zero
# exit and no profile written; marker warnings and differing function sets are surfaced as warnings.
# Usage: bash profile_bad_input.sh <roofcast binary> <source dir>
set -uo pipefail
source "$(dirname "$0")/lib/setup.sh" "$@"
command -v cc >/dev/null || { echo "SKIP: no C compiler (cc)"; exit 77; }
cc -O1 -o "$tmp/app" "$src/tests/e2e/data/profile_app.c" || exit 1
printf 'not a program\n' > "$tmp/text.txt"
out="$tmp/out.json"

expect_error profile "program not found" --backend time -o "$out" -- "$tmp/missing"
expect_error profile "program not found on PATH" --backend time -o "$out" -- roofcast-no-such-program
expect_error profile "not an executable" --backend time -o "$out" -- "$tmp/text.txt"
expect_error profile "exited with status 3: no profile written" --backend time -o "$out" -- "$tmp/app" 10 exit 3
expect_error profile "was killed by signal 9" --backend time -o "$out" -- "$tmp/app" 10 kill
expect_error profile "--ranks" --backend time --ranks 0 -o "$out" -- "$tmp/app"
expect_error profile "--ranks" --backend time --ranks -2 -o "$out" -- "$tmp/app"
expect_error profile "--ranks" --backend time --ranks two -o "$out" -- "$tmp/app"
expect_error profile "expected auto, papi, perf, callgrind, cachegrind or time" --backend gprof -o "$out" -- "$tmp/app"
expect_error profile "expected NAME=VALUE" --backend time --param size -o "$out" -- "$tmp/app"
expect_error profile "expected a finite number" --backend time --param size=inf -o "$out" -- "$tmp/app"
expect_error profile "expected a finite number" --backend time --param size=abc -o "$out" -- "$tmp/app"
expect_error profile "expected a program to profile" --backend time -o "$out"
expect_error profile "--repeat" --backend time --repeat 0 -o "$out" -- "$tmp/app"
expect_error profile "no TAU profile" --import-tau "$tmp" -o "$out"
[[ -e $out ]] && { echo "a profile was written by a failed run"; fail=1; }

# Tools missing: PATH without mpirun/valgrind/perf (the program is given by its path).
mkdir -p "$tmp/bin"
ln -s "$(command -v grep)" "$tmp/bin/grep" # expect_error's own tool
expect_error_env() { PATH="$tmp/bin" expect_error "$@"; }
expect_error_env profile "no mpirun on PATH" --backend time --ranks 2 -o "$out" -- "$tmp/app"
expect_error_env profile "valgrind is not installed" --backend cachegrind -o "$out" -- "$tmp/app"
expect_error_env profile "perf: not installed" --backend perf -o "$out" -- "$tmp/app"
msg=$(PATH="$tmp/bin" "$roofcast" profile --backend perf -o "$out" -- "$tmp/app" 2>&1)
grep -q "backends that work here: .*time" <<<"$msg" || { echo "the perf error does not say what exists instead"; fail=1; }

# PAPI without countable events (these VMs): explicit papi fails naming the reason and the alternatives.
if ! "$roofcast" profile --backend papi -o "$tmp/papi.json" -- "$tmp/app" 10 >/dev/null 2>&1; then
    expect_error profile "backends that work here" --backend papi -o "$out" -- "$tmp/app" 10
fi

# Simulated passes at once: 0 (as many as share the cores best) .. 64.
expect_error profile "'--passes-at-once': expected 0 (as many as share the cores best) .. 64, got -1" --backend time --passes-at-once -1 \
    -o "$out" -- "$tmp/app" 10

# Mismatched regions: the marker file's warning is surfaced, the profile is still written.
"$roofcast" profile --backend time -o "$tmp/m.json" -- "$tmp/app" 1000 mismatch 2> "$tmp/m.err" >/dev/null ||
    { echo "mismatch run failed"; fail=1; }
grep -q "roofcast: warning: rank 0: region 'solve' ended but the innermost open region is 'dot'" "$tmp/m.err" ||
    { echo "mismatch warning not surfaced: $(cat "$tmp/m.err")"; fail=1; }

# Ranks with different function sets: kept, with a note.
if command -v mpirun >/dev/null; then
    "$roofcast" profile --backend time --ranks 2 -o "$tmp/x.json" -- "$tmp/app" 1000 rank-extra 2> "$tmp/x.err" \
        >/dev/null || { echo "rank-extra run failed: $(cat "$tmp/x.err")"; fail=1; }
    grep -q "ranks report different function sets: 1 function(s)" "$tmp/x.err" ||
        { echo "no note on differing function sets: $(cat "$tmp/x.err")"; fail=1; }
    python3 -c "
import json,sys; d=json.load(open(sys.argv[1]))
f={x['name']:x for x in d['functions']}
assert f['main->extra']['metrics']['time']['per_rank'][0][0] == 0, f['main->extra']" "$tmp/x.json" ||
        { echo "main->extra not kept with 0 on rank 0"; fail=1; }
else
    skip_part "no mpirun (openmpi-bin): the differing-function-sets case was not run"
fi
[[ $fail -eq 0 ]] && echo ok
end_test
