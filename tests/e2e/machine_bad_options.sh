#!/usr/bin/env bash
# End to end: bad options of `roofcast machine` fail fast with one clear line, a non-zero exit,
# and no output file left behind.
set -uo pipefail
roofcast=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

expect_error() { # expect_error <pattern> <args...>
    local pattern=$1
    shift
    local out rc
    out=$("$roofcast" machine "$@" 2>&1 >/dev/null)
    rc=$?
    if [[ $rc -eq 0 ]]; then echo "exit 0 for: $*"; fail=1; fi
    if ! grep -q -- "$pattern" <<<"$out"; then echo "no '$pattern' in error for $*: $out"; fail=1; fi
    if [[ $(grep -c "roofcast: error:" <<<"$out") -ne 1 ]]; then echo "not one error line for $*: $out"; fail=1; fi
}

expect_error "expected one of load, store, copy, triad, update, copy_nt, triad_nt" --quick --kernels load,daxpy -o "$tmp/a.yaml"
expect_error "unknown ISA 'neon'" --quick --isa neon -o "$tmp/b.yaml"
expect_error "expected thread counts >= 1" --quick --threads 0 -o "$tmp/c.yaml"
expect_error "--max-size" --quick --max-size 12 -o "$tmp/d.yaml"
expect_error "--max-size" --quick --max-size lots -o "$tmp/e.yaml"
expect_error "--max-size" --quick --max-size 100TiB -o "$tmp/f.yaml"
expect_error "does not exist or is not writable" --quick -o "$tmp/missing/dir/m.yaml"
left=$(find "$tmp" -type f | wc -l)
if [[ $left -ne 0 ]]; then echo "files left behind:"; find "$tmp" -type f; fail=1; fi
exit $fail
