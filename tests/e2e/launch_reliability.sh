#!/usr/bin/env bash
# A subset of bench/reliability-launch.sh (its e2e mode, under a minute): bad options, outputs naming inputs, failing, hanging and
# forking programs, hostile marker files and TAU directories, the marker library past its bounds, time limits
# and signals through profile, threads --command, stencil and inspect, with symlinks planted at the
# temporary names roofcast used to predict. Every count must be 0: crashes, hangs, overwritten inputs, files
# written through planted symlinks, processes left running, temporaries left, profiles validate refuses,
# raw terminal output, messy errors and unexpected outcomes.
# Usage: bash launch_reliability.sh <roofcast binary> <source dir>
set -uo pipefail
source "$(dirname "$0")/lib/setup.sh" "$@"
need python3 nm objdump
roofcast=$(realpath "$roofcast")
python3 "$src/bench/lib/reliability_launch.py" "$roofcast" "$tmp" "$src" e2e >"$tmp/out.txt" 2>&1
rc=$?
cat "$tmp/out.txt"
[[ $rc -eq 0 ]] || { echo "the battery itself failed (exit $rc)"; exit 1; }
grep -qx "findings: 0" "$tmp/out.txt" || { echo "FAIL: findings above"; exit 1; }
grep -q "^note:" "$tmp/out.txt" && skip_part "$(grep '^note:' "$tmp/out.txt" | tr '\n' ' ')"
end_test
