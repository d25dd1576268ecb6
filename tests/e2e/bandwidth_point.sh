#!/usr/bin/env bash
# End to end: `roofcast bandwidth KERNEL SIZE` measures one point as `roofcast machine` measures a level
# (the JSON carries the kernel, threads, working set, the summary of every epoch and the write-allocate
# factor), and bad arguments fail with one clear line and a non-zero exit.
set -uo pipefail
source "$(dirname "$0")/lib/setup.sh" "$@"

json=$("$roofcast" bandwidth copy 4MiB --quick --threads 1 --json) || { echo "bandwidth copy failed"; exit 1; }
PYTHONPATH="$(dirname "$0")/lib" python3 - "$json" <<'PY' || fail=1
from json_checks import check, done, doc as p
check(p["kernel"] == "copy" and p["threads"] == 1, "kernel and threads")
# The working set is rounded to whole blocks per array, never by more than one block per array.
check(abs(p["working_set_bytes"] - 4 * 2**20) <= 0.01 * 4 * 2**20, "working set near 4 MiB")
g = p["gbs"]
# --quick: five epochs, more (up to 3x) while the best three disagree (adaptive settling), all kept.
check(5 <= g["n"] <= 15 and len(g["samples"]) == g["n"], "five to fifteen epochs in --quick")
check(g["min"] <= g["median"] <= g["max"] and g["min"] > 0, "ordered positive summary")
# 4 MiB on one core lies beyond L1, so the copy's store allocates its line: 24 moved per 16 requested.
check(abs(p["moved_per_requested"] - 1.5) < 1e-12, "write-allocate factor of copy beyond L1")
done()
PY

expect_error bandwidth "unknown kernel 'daxpy', expected one of load, store" daxpy 1MiB
expect_error bandwidth "field 'SIZE': expected a working set from 4.00 KiB" load 1KiB
expect_error bandwidth "SIZE" load lots
# --threads 0 is every core (as on every subcommand); a count past 4 x the hardware threads is refused.
expect_error bandwidth "expected 0 (every core) or a thread count from 1 to" load 1MiB --threads 100000
expect_error bandwidth "expected 0 (every core) or a thread count from 1 to" load 1MiB --threads 1,2
exit $fail
