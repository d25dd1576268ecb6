#!/usr/bin/env bash
# End-to-end: options and outputs that cannot work are refused before any measurement starts (each of
# these used to measure for minutes first), with one error line naming the option.
# Usage: bash early_checks.sh <roofcast-binary> <source-dir>
set -uo pipefail
source "$(dirname "$0")/lib/setup.sh" "$@"

# Each must fail within seconds: a timeout of 20 s is far below the shortest measurement run.
t0=$(date +%s)
expect_error run "unknown suite 'bogus'" --suite bogus -o "$tmp/r"
expect_error run "expected 0 (every core) or a thread count from 1 to" --threads -1 -o "$tmp/r"
expect_error run "does not exist or is not writable" -o "$tmp/missing/dir/report"
mkdir "$tmp/home" && echo keep >"$tmp/home/notes.txt"
expect_error run "not part of a roofcast report" -o "$tmp/home"
expect_error machine "the output name is empty" --quick -o ''
expect_error machine "is a directory" --quick -o "$tmp"
expect_error bench "does not exist or is not writable" --machine "$src/data/machines/example-caches.yaml" \
    --json "$tmp/missing/r.json"
expect_error bench "names the input file" --machine "$src/data/machines/example-caches.yaml" \
    --json "$src/data/machines/example-caches.yaml"
t1=$(date +%s)
[[ $((t1 - t0)) -lt 60 ]] || { echo "the checks took $((t1 - t0)) s: something measured first"; fail=1; }
[[ $(cat "$tmp/home/notes.txt") == keep ]] || { echo "a user's file changed"; fail=1; }
[[ $fail -eq 0 ]] && echo "ok: every bad option and output refused before measuring ($((t1 - t0)) s)"
exit $fail
