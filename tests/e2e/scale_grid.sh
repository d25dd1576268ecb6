#!/usr/bin/env bash
# End-to-end test of `roofcast scale --grid`: a strong-scaled 2-D halo code whose halo is counted rank by rank
# on the grids MPI_Dims_create gives (1x1, 2x1, 2x2, 4x2 and the target's 4x4), plus a per-rank start-up
# cost and a shared library's function. From 1-8 ranks the grid's terms forecast 16 exactly, the smooth
# candidates cannot; the library's error is reported apart; bad grids are refused with one line.
# Usage: bash scale_grid.sh <roofcast binary> <source dir>
set -uo pipefail
source "$(dirname "$0")/lib/setup.sh" "$@"
note() { echo "FAIL: $*" >&2; fail=1; }

# Halo cells of an n x n domain on a kx x ky grid, counted rank by rank (one row or column per neighbour).
rows() { # ranks kx ky
    awk -v p="$1" -v kx="$2" -v ky="$3" -v n=960 'BEGIN {
        h = 0
        for (x = 0; x < kx; x++) for (y = 0; y < ky; y++)
            h += (n / ky) * ((x > 0) + (x + 1 < kx)) + (n / kx) * ((y > 0) + (y + 1 < ky))
        printf "halo,L1_DCM,%d,%.17g\n", p, 1e5 + 30 * h + 2000 * p
        printf "memcpy,L1_DCM,%d,%.17g\n", p, 500 + 40 * p
    }'
}
{
    echo "function,metric,ranks,value"
    rows 1 1 1; rows 2 2 1; rows 4 2 2; rows 8 4 2
} > "$tmp/small.csv"
{ echo "function,metric,ranks,value"; rows 16 4 4; } > "$tmp/target.csv"

"$roofcast" scale "$tmp/small.csv" --evaluate "$tmp/target.csv" --grid 2 --json > "$tmp/grid.json" 2> "$tmp/grid.err" ||
    note "scale --grid 2 failed: $(cat "$tmp/grid.err")"
grep -q 'process grid (2-D.*: 1 ranks 1x1, 2 ranks 2x1, 4 ranks 2x2, 8 ranks 4x2, 16 ranks 4x4$' "$tmp/grid.err" ||
    note "the shapes line: $(cat "$tmp/grid.err")"
"$roofcast" scale "$tmp/small.csv" --evaluate "$tmp/target.csv" --json > "$tmp/smooth.json" 2> "$tmp/smooth.err" ||
    note "scale without --grid failed: $(cat "$tmp/smooth.err")"
python3 - "$tmp/grid.json" "$tmp/smooth.json" <<'PY' || fail=1
import json, sys
grid, smooth = (json.load(open(f)) for f in sys.argv[1:3])
halo = next(f for f in grid["functions"] if f["function"] == "halo")
assert halo["model"]["family"] == "grid", halo["model"]
assert "cuts2(ranks)" in halo["model"]["formula"], halo["model"]["formula"]
assert grid["grid"] == {"dims": 2, "shapes": {"1": [1, 1], "2": [2, 1], "4": [2, 2], "8": [4, 2], "16": [4, 4]}, "domain": []}, grid["grid"]
err = {r["function"]: r["relative_error"] for r in grid["evaluation"]["rows"]}
assert err["halo"] < 1e-9, err
smooth_err = {r["function"]: r["relative_error"] for r in smooth["evaluation"]["rows"]}
assert smooth_err["halo"] > 0.02, smooth_err
PY

# Kinds come from roofcast profiles: a library function's error is reported apart.
mk() { # ranks value-own value-lib file
    python3 - "$@" <<'PY'
import json, sys
r, own, lib, out = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
fn = lambda name, kind, v: {"name": name, "kind": kind, "metrics": {"INS": {"per_rank": [[v / r] * r], "aggregate": "sum"}}}
json.dump({"format": "roofcast-profile", "format_version": 3, "backend": "cachegrind", "parameters": {"ranks": r},
           "run": {"ranks": r, "threads": 1, "repetitions": 1, "wall_seconds": 1.0, "cores": r},
           "functions": [fn("solve", "function", own), fn("memcpy", "library", lib)]}, open(out, "w"))
PY
}
for r in 1 2 4 8 16; do mk "$r" $((1000 * r)) 50 "$tmp/p$r.json" || note "profile $r"; done
python3 - "$tmp/p16.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["functions"][1]["metrics"]["INS"]["per_rank"] = [[100.0 / 16] * 16] # the library doubled at the target
json.dump(d, open(sys.argv[1], "w"))
PY
"$roofcast" scale "$tmp"/p{1,2,4,8}.json --evaluate "$tmp/p16.json" > "$tmp/kinds.txt" 2>&1 || note "kinds: $(cat "$tmp/kinds.txt")"
grep -q "the program's own functions: 0.00 % over 1; shared libraries' functions: 50.00 % over 1" "$tmp/kinds.txt" ||
    note "own and library errors apart: $(grep -i 'relative error\|own' "$tmp/kinds.txt")"

expect_error scale "expected the grid's dimensions, 1, 2 or 3" "$tmp/small.csv" --grid 5
expect_error scale "--grid-shape" "$tmp/small.csv" --grid-shape 16=4x4
expect_error scale "--grid-domain" "$tmp/small.csv" --grid-domain 64x32
expect_error scale "whose product is 16" "$tmp/small.csv" --grid 2 --grid-shape 16=4x3
printf 'function,metric,ranks,size,value\nf,t,1,10,1\nf,t,2,10,2\n' > "$tmp/two.csv"
expect_error scale "one parameter is the rank count" "$tmp/two.csv" --grid 2
exit $fail
