#!/usr/bin/env bash
# Bad inputs and faults over everything roofcast launches and over the marker library (docs/reliability.md,
# "Launchers"): about 230 cases through `profile` (options, outputs naming inputs, programs that fail, hang,
# fork children that outlive them or ignore SIGTERM, print megabytes or escape sequences, remove their
# profile directory; marker files with work of 1e300, 2e9 threads, 50,000 warnings, million-character and
# control-character names, FIFOs and symlink loops where a marker file should be; TAU directories with times
# of inf, symlink loops and names that are not UTF-8; the marker library past its bounds through
# roofcast-marker-driver), `threads --command` (bytes per element of inf, regexes too long or too deep, a
# printed time of 60,000 digits, time limits), `stencil` (bad options, a launch past its time limit),
# `inspect` (a binary named -h, FIFOs, devices) and SIGINT, SIGTERM and SIGHUP during launches. Symlinks are
# planted first at the temporary names roofcast used to predict ($TMPDIR/roofcast-stencil-<pid> and the like,
# for the next 20,000 pids) and at stale-looking private-directory names, all pointing at victim files.
# Prints per class the cases and those with findings, then the counts: crashes, hangs, overwritten inputs,
# files written through planted symlinks, processes left running, temporaries left, profiles written that
# `validate` refuses, raw terminal output, messy errors, unexpected outcomes; `findings: N` last. Each
# finding is listed with its command. RELIABILITY_VERBOSE=1 prints every case. The work is done by
# bench/lib/reliability_launch.py; tests/e2e/launch_reliability.sh runs its quick subset. About 3 minutes on
# 2 vCPUs.
# Usage: bash bench/reliability-launch.sh [roofcast binary] [quick]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=lib/host.sh
source "$here/lib/host.sh"
bin=$(realpath "${1:-build/release/roofcast}")
[[ -x $bin ]] || { echo "no roofcast binary at $bin" >&2; exit 1; }
host_line
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 "$here/lib/reliability_launch.py" "$bin" "$work" "$(dirname "$here")" "${2:-}"
