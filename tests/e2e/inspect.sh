#!/usr/bin/env bash
# End to end: `roofcast inspect` finds the innermost loops of a function with their vector width and FP
# mix (the suite's 7-point Jacobi in roofcast itself; a scalar and an AVX2 daxpy compiled here when a C
# compiler is present), prints the same as JSON, and names the file and what was expected on bad input.
set -uo pipefail
source "$(dirname "$0")/lib/setup.sh" "$@"
command -v objdump >/dev/null && command -v nm >/dev/null || { echo "skipped: objdump/nm (binutils) not installed"; exit 77; }
command -v jq >/dev/null || { echo "skipped: jq is not installed (needed to read the JSON)"; exit 77; }
check() { # check <jq filter that must print true> <json>
    if [[ $(jq -r "$1" <<<"$2") != "true" ]]; then echo "JSON check failed: $1"; head -c 3000 <<<"$2"; fail=1; fi
}

# The suite's Jacobi runner: its OpenMP body holds a loop with FP arithmetic; table and JSON agree.
table=$("$roofcast" inspect "$roofcast" roofcast::measure::suite::run_jacobi7) || { echo "inspect failed"; fail=1; }
echo "$table" | head -8
grep -q "innermost loop" <<<"$table" || { echo "no loop table"; fail=1; }
json=$("$roofcast" inspect "$roofcast" roofcast::measure::suite::run_jacobi7 --json) || { echo "inspect --json failed"; fail=1; }
check '.loops | length > 0' "$json"
check '.loops[0].fma + .loops[0].add + .loops[0].mul > 0' "$json"
check '.loops[0].function | contains("run_jacobi7")' "$json"
check '.loops[0].function | contains("_omp_fn")' "$json"
check '.unavailable == null' "$json"
rows=$(grep -cE '^ +[0-9]+  0x' <<<"$table")
[[ $rows -eq $(jq '.loops | length' <<<"$json") ]] || { echo "table rows $rows differ from JSON loops"; fail=1; }

# Loops compiled here: scalar (mulsd + addsd) and AVX2 with FMA (one vfmadd...pd on ymm).
if command -v cc >/dev/null && [[ $(uname -m) == x86_64 ]]; then
    printf 'void daxpy(long n, double a, const double* x, double* y) {\n  for (long i = 0; i < n; ++i) y[i] += a * x[i];\n}\nint main(void) { return 0; }\n' >"$tmp/daxpy.c"
    cc -O2 -fno-tree-vectorize -o "$tmp/scalar" "$tmp/daxpy.c" && json=$("$roofcast" inspect "$tmp/scalar" daxpy --json)
    check '.loops | length == 1' "$json"
    check '.loops[0].fp_by_width == {"0": 2} and .loops[0].mul == 1 and .loops[0].add == 1' "$json"
    check '.loops[0].vector_bits == 0 and .loops[0].stores == 1 and .loops[0].flops_per_pass.double == 2' "$json"
    cc -O3 -mavx2 -mfma -o "$tmp/avx2" "$tmp/daxpy.c" && json=$("$roofcast" inspect "$tmp/avx2" daxpy --json)
    check '.loops[0].vector_bits == 256 and .loops[0].fma >= 1' "$json"
else
    skip_part "no C compiler (cc) for x86-64: the compiled daxpy checks were not run"
fi

# Bad input: one error line naming the file and what was expected.
expect_error inspect "$tmp/missing: no such file (expected an x86-64 ELF" "$tmp/missing" main
expect_error inspect "$src/README.md: not an ELF file (expected an x86-64 executable" "$src/README.md" main
expect_error inspect "$roofcast: field 'SYMBOL': no function whose demangled name starts with 'no_such_fn_xyz'" "$roofcast" no_such_fn_xyz
expect_error inspect "$tmp: not a regular file" "$tmp" main
end_test
