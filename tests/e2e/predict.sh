#!/usr/bin/env bash
# End to end: `roofcast predict` on the shipped kernels and machines prints a table per model and
# the verdict; --explain prints the formulas; `roofcast validate` accepts every shipped kernel file.
set -uo pipefail
source "$(dirname "$0")/lib/setup.sh" "$@"
pub="$src/data/machines/example-published.yaml"
caches="$src/data/machines/example-caches.yaml"

expect_line() { # expect_line <pattern> <text> <what>
    if ! grep -qF -- "$1" <<<"$2"; then echo "no '$1' in $3:"; echo "$2"; fail=1; fi
}

out=$("$roofcast" predict "$src/data/kernels/mixed-arrays.yaml" --machine "$pub") || { echo "predict failed"; fail=1; }
# 43 flop / max(40/46, 208/146, 43/112.6) ns = 30.18 GFLOP/s = 23.6 % of 128.
expect_line "this loop can reach 23.6 % of peak; it is L2-bandwidth bound" "$out" "mixed-arrays verdict"
for model in roofline hierarchical cache-aware mixed; do expect_line "== $model" "$out" "mixed-arrays tables"; done

out=$("$roofcast" predict "$src/data/kernels/mixed-arrays.yaml" --machine "$pub" --model roofline)
# Roofline: 46 GB/s x 43/40 flop/B = 49.45 GFLOP/s = 38.6 % of 128.
expect_line "=> 49.45 GFLOP/s, 38.6 % of peak" "$out" "roofline table"
if grep -q "== mixed" <<<"$out"; then echo "--model roofline printed other models"; fail=1; fi

out=$("$roofcast" predict "$src/data/kernels/mixed-arrays.yaml" --machine "$pub" --explain --model mixed)
expect_line "t_L2 = D / B = 208 B / 146 GB/s (entered) = 1.42 ns" "$out" "explanation"
expect_line "n_cache > (B_L2 / B_MEM - 1) x n_MEM = 10.87" "$out" "explanation"

# Jacobi on the 8-core example: with 8 threads each gets 1/8 of the 11 MiB L3, the 3-D layer condition
# (1.22 MiB) fails in 0.5 x 11 MiB / 8 = 704 KiB: 40 B/iteration from memory; with 1 thread it holds: 24 B.
out=$("$roofcast" predict "$src/data/kernels/jacobi-3d-7pt.yaml" --machine "$caches" --model mixed)
expect_line "MEM: the 2-D layer condition holds in L3" "$out" "jacobi, 8 threads"
out=$("$roofcast" predict "$src/data/kernels/jacobi-3d-7pt.yaml" --machine "$caches" --model mixed --threads 1)
expect_line "MEM: the 3-D layer condition holds in L3" "$out" "jacobi, 1 thread"
expect_line "-> 24 B/iteration" "$out" "jacobi, 1 thread"

for f in "$src"/data/kernels/*.yaml; do
    "$roofcast" validate "$f" >/dev/null || { echo "validate rejected $f"; fail=1; }
done
for f in "$src"/data/kernels/*.yaml; do
    "$roofcast" predict "$f" --machine "$caches" >/dev/null || { echo "predict failed on $f"; fail=1; }
done
exit $fail
