#!/usr/bin/env bash
# End to end: every bad input of `roofcast predict` fails with one error line naming file and field,
# and a non-zero exit.
set -uo pipefail
source "$(dirname "$0")/lib/setup.sh" "$@"
pub="$src/data/machines/example-published.yaml"

bad_kernel() { # bad_kernel <file> <body line> <error>: predict on the kernel fails with <error>
    printf 'format_version: 1\nname: bad\nflops_per_iteration: 2\n%s\n' "$2" >"$tmp/$1"
    expect_error predict "$3" "$tmp/$1" --machine "$pub"
}

bad_kernel zero.yaml "bytes_per_iteration: {L1: 0, MEM: 0}" \
    "$tmp/zero.yaml: field 'bytes_per_iteration': the kernel's traffic is zero at every level"
bad_kernel neg.yaml "arrays: {MEM: -3}" "$tmp/neg.yaml: field 'arrays.MEM': expected a non-negative number"
bad_kernel nan.yaml "arrays: {MEM: .nan}" "$tmp/nan.yaml: field 'arrays.MEM'"
bad_kernel level.yaml "bytes_per_iteration: {L3: 16, MEM: 16}" \
    "$tmp/level.yaml: field 'bytes_per_iteration.L3': the machine 'some-published-system' has no level 'L3'"
bad_kernel affine.yaml "loop: {indices: [i], bounds: [100], arrays: [{name: a, dims: [100]}], reads: ['a[i*i]']}" \
    "$tmp/affine.yaml: field 'loop.reads[0]': non-affine or strided index 'i*i'"
bad_kernel unknown.yaml "loop: {indices: [i], bounds: [100], arrays: [{name: a, dims: [100]}], reads: ['a[q+1]']}" \
    "field 'loop.reads[0]': unknown loop index 'q'"
printf 'format_version: 1\nname: nopeak\ncompute: {effective_gflops: {double: 10}}\nlevels: [{name: MEM, bandwidth_gbs: 10}]\n' >"$tmp/nopeak.yaml"
expect_error predict "$tmp/nopeak.yaml: field 'compute.peak_gflops': missing" "$src/data/kernels/triad.yaml" --machine "$tmp/nopeak.yaml"
expect_error predict "field '--model': unknown model 'ecm'" "$src/data/kernels/triad.yaml" --machine "$pub" --model ecm
# A loop nest needs cache sizes that the published machine does not give.
expect_error predict "$pub: field 'levels[0].size_bytes': missing" "$src/data/kernels/jacobi-3d-7pt.yaml" --machine "$pub"
exit $fail
