#!/usr/bin/env bash
# End to end: `roofcast ceiling` measures one compute ceiling as `roofcast machine` does (the JSON carries
# the kernel, the summary of every epoch, the probed clock and the second-best epoch's fraction of its op's
# theoretical peak, whose basis is named); a normal run of every op is accepted (not refused as above the
# peak), and bad arguments fail with one clear line and a non-zero exit.
set -uo pipefail
source "$(dirname "$0")/lib/setup.sh" "$@"

json=$("$roofcast" ceiling --isa sse --quick --threads 1 --json) || { echo "ceiling failed"; exit 1; }
PYTHONPATH="$(dirname "$0")/lib" python3 - "$json" <<'PY' || fail=1
from json_checks import check, done, doc as c
check((c["precision"], c["isa"], c["op"], c["threads"]) == ("double", "sse", "fma", 1), "defaults, --isa and --threads")
g = c["gflops"]
check(g["n"] == 20 and len(g["samples"]) == 20, "twenty epochs in --quick")
check(0 < g["min"] <= g["median"] <= g["max"], "ordered positive summary")
check(c["ghz"] is not None and c["ghz"] > 0, "probed clock")
# The fraction is the second-best epoch's flops per cycle over the op's peak: for FMA, lanes (2) x 2 flops x units.
f = c["fraction_of_theoretical"]
check(c["fma_units"] in (1, 2), "FMA units")
check(c["peak_basis"] != "", "the peak's basis is named")
check(abs(c["peak_flops_per_cycle"] - 2 * 2 * c["fma_units"]) < 1e-12, "FMA peak per core and cycle")
check(abs(f - c["best_flops_per_cycle"] / c["peak_flops_per_cycle"]) < 1e-12, "fraction")
done()
PY

# Every op on the widest ISA, one thread: accepted, judged against its own peak (not the FMA one for add and
# mul), within the 5 % margin the command allows.
for op in fma add mul addmul chain; do
    json=$("$roofcast" ceiling --op $op --quick --threads 1 --json 2>"$tmp/err") ||
        { echo "a normal ceiling run of --op $op was refused: $(cat "$tmp/err")"; fail=1; continue; }
    PYTHONPATH="$(dirname "$0")/lib" python3 - "$json" "$op" <<'PY' || fail=1
import sys
from json_checks import check, done, doc as c
op = sys.argv[2]
check(c["op"] == op, "op")
check(0 < c["fraction_of_theoretical"] <= 1.05, f"{op}: fraction {c['fraction_of_theoretical']}")
check(c["peak_flops_per_cycle"] > 0 and c["peak_basis"], f"{op}: peak and basis")
done()
PY
done

expect_error ceiling "unknown ISA 'neon'" --isa neon --quick
expect_error ceiling "unknown op 'div'" --op div --quick
expect_error ceiling "unknown precision 'half'" --precision half --quick
# --threads 0 is every core (as on every subcommand); a count past 4 x the hardware threads is refused.
expect_error ceiling "expected 0 (every core) or a thread count from 1 to" --threads 100000 --quick
expect_error ceiling "expected 0 (every core) or a thread count from 1 to" --threads two --quick
exit $fail
