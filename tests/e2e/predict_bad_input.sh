#!/usr/bin/env bash
# End to end: every bad input of `roofcast predict` fails with one error line naming file and field,
# and a non-zero exit.
set -uo pipefail
roofcast=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
pub="$src/data/machines/example-published.yaml"

source "$(dirname "$0")/lib/expect_error.sh"
kernel() { # kernel <file> <body lines...>
    local f="$tmp/$1"
    shift
    printf 'format_version: 1\nname: bad\nflops_per_iteration: 2\n' >"$f"
    printf '%s\n' "$@" >>"$f"
}

kernel zero.yaml "bytes_per_iteration: {L1: 0, MEM: 0}"
expect_error predict "$tmp/zero.yaml: field 'bytes_per_iteration': the kernel's traffic is zero at every level" "$tmp/zero.yaml" --machine "$pub"
kernel neg.yaml "arrays: {MEM: -3}"
expect_error predict "$tmp/neg.yaml: field 'arrays.MEM': expected a non-negative number" "$tmp/neg.yaml" --machine "$pub"
kernel nan.yaml "arrays: {MEM: .nan}"
expect_error predict "$tmp/nan.yaml: field 'arrays.MEM'" "$tmp/nan.yaml" --machine "$pub"
kernel level.yaml "bytes_per_iteration: {L3: 16, MEM: 16}"
expect_error predict "$tmp/level.yaml: field 'bytes_per_iteration.L3': the machine 'some-published-system' has no level 'L3'" "$tmp/level.yaml" --machine "$pub"
kernel affine.yaml "loop: {indices: [i], bounds: [100], arrays: [{name: a, dims: [100]}], reads: ['a[i*i]']}"
expect_error predict "$tmp/affine.yaml: field 'loop.reads[0]': non-affine or strided index 'i*i'" "$tmp/affine.yaml" --machine "$pub"
kernel unknown.yaml "loop: {indices: [i], bounds: [100], arrays: [{name: a, dims: [100]}], reads: ['a[q+1]']}"
expect_error predict "field 'loop.reads[0]': unknown loop index 'q'" "$tmp/unknown.yaml" --machine "$pub"
printf 'format_version: 1\nname: nopeak\ncompute: {effective_gflops: {double: 10}}\nlevels: [{name: MEM, bandwidth_gbs: 10}]\n' >"$tmp/nopeak.yaml"
expect_error predict "$tmp/nopeak.yaml: field 'compute.peak_gflops': missing" "$src/data/kernels/triad.yaml" --machine "$tmp/nopeak.yaml"
expect_error predict "field '--model': unknown model 'ecm'" "$src/data/kernels/triad.yaml" --machine "$pub" --model ecm
# A loop nest needs cache sizes that the published machine does not give.
expect_error predict "$pub: field 'levels[0].size_bytes': missing" "$src/data/kernels/jacobi-3d-7pt.yaml" --machine "$pub"
exit $fail
