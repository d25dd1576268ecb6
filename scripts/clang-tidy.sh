#!/usr/bin/env bash
# Runs clang-tidy (.clang-tidy's checks) over the C++ sources of src/, or over the files given, using the
# release build's compile_commands.json (configure it first: cmake --preset release). Exits non-zero
# when any check fires.
#   bash scripts/clang-tidy.sh            # every .cpp under src/
#   bash scripts/clang-tidy.sh FILE...    # only these
set -euo pipefail
cd "$(dirname "$0")/.."
db=build/release
[[ -f $db/compile_commands.json ]] || { echo "clang-tidy.sh: no $db/compile_commands.json (cmake --preset release)"; exit 2; }
command -v clang-tidy >/dev/null || { echo "clang-tidy.sh: clang-tidy is not installed (scripts/install-deps.sh --tests)"; exit 2; }
if [[ $# -gt 0 ]]; then files=("$@"); else mapfile -t files < <(find src -name '*.cpp' | sort); fi
[[ ${#files[@]} -gt 0 ]] || exit 0
# g++-only flags in the database are unknown to clang; drop their warnings, keep the checks.
jobs=$(nproc)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
printf '%s\n' "${files[@]}" |
    xargs -P "$jobs" -n 4 clang-tidy -p "$db" --quiet --extra-arg=-Wno-unknown-warning-option \
        --extra-arg=-Wno-unused-command-line-argument >"$log" 2>/dev/null || true
if grep -E "(warning|error): .*\[[a-z]" "$log" >/dev/null; then
    grep -E -A3 "(warning|error): " "$log"
    echo "clang-tidy.sh: $(grep -cE '(warning|error): .*\[[a-z]' "$log") finding(s)"
    exit 1
fi
echo "clang-tidy.sh: ${#files[@]} files clean"
