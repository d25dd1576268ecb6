#!/usr/bin/env bash
# Reliability against hostile input, per class (docs/reliability.md): for each class, the inputs tried,
# how many ended in a clean error (exit 1 and one `roofcast: error: FILE: ...` line on stderr naming the
# file, at most 600 characters, no control bytes; `roofcast: warning:` lines may come first; a usage error
# of the command line: exit 2 and that line, then `Run with --help for usage.`), were accepted, ended in a
# messy error (any other non-zero exit), crashed (a signal, status >= 128, or sanitizer/abort text),
# hung (still running after 10 s), took longer than 1 s per MB of input (at least 1 s; option checks 5 s),
# and the targets destroyed (a FIFO, device, symlink or input replaced or changed). Classes:
#   deep nesting      JSON/YAML nested 100 .. 100,000 deep, at the top and under a known key, through
#                     validate, plot, report, scale, predict and threads --from
#   unbounded counts  --threads 100000, sizes of 1e300, --sweep-k 2e9, ...: refused before measuring
#   special outputs   -o onto a FIFO (with and without a reader), a device, a directory, symlinks, the input
#   unbounded reads   /dev/zero, FIFOs, a directory, a socket, a 1 GiB sparse file, a binary: fail in 1 s
#   schema mutations  N mutations of each shipped machine, kernel, profile, results, threads and Extra-P
#                     file (a number replaced by 1e308, nan, [[1]], ...; a key deleted, misspelt or
#                     duplicated; truncation; a control byte; a 200 KB token), each through `validate` and
#                     one command that consumes the file (plot, predict, scale, threads --from)
#   hostile names     file names and names inside files with ESC and newlines, 200 KB tokens and names:
#                     no raw control byte reaches the terminal, no error line over 600 characters
# Deterministic (Python's random.seed(19)); every run under `timeout 10` and an 8 GiB address-space limit,
# in a private temporary directory removed on exit. No invocation is meant to measure this machine (one
# runs `true` through `threads --command`: --repetitions has no bound). Exit status 0 whatever is found; the last line is `findings: N`, and each finding is listed
# above it (command, input, first 200 characters of stderr). RELIABILITY_KEEP=DIR keeps the inputs of
# the findings, RELIABILITY_VERBOSE=1 prints every run. The work is done by bench/lib/reliability.py. The
# CPU model is the first line. About 3 minutes on 2 vCPUs with the default (7,300 runs).
# Usage: bash bench/reliability.sh [roofcast binary] [mutations per file (default 200)]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=lib/host.sh
source "$here/lib/host.sh"
bin=$(realpath "${1:-build/release/roofcast}")
n=${2:-200}
[[ -x $bin ]] || { echo "no roofcast binary at $bin" >&2; exit 1; }
host_line
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ulimit -v $((8 * 1024 * 1024))
python3 "$here/lib/reliability.py" "$bin" "$n" "$work" "$(dirname "$here")"
