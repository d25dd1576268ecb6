#!/usr/bin/env bash
# Runs clang-tidy (.clang-tidy's checks) over the C++ sources of src/, or over the files given, using the
# compile commands of the release configuration without the unity build (configured, not built, under
# build/tidy: the unity build's database names batches, not files). Exits non-zero when any check fires.
#   bash scripts/clang-tidy.sh            # every .cpp under src/
#   bash scripts/clang-tidy.sh FILE...    # only these
#   bash scripts/clang-tidy.sh --changed N  # the .cpp files of src/ that the last N commits changed (CI)
set -euo pipefail
cd "$(dirname "$0")/.."
db=build/tidy
cmake --preset release -B "$db" -DROOFCAST_UNITY=OFF >/dev/null
command -v clang-tidy >/dev/null || { echo "clang-tidy.sh: clang-tidy is not installed (scripts/install-deps.sh --tests)"; exit 2; }
if [[ ${1:-} == --changed ]]; then
    n=${2:?--changed takes a number of commits}
    # The files the last n commits of their own changed (a merge brings a branch's whole diff, which its
    # own commits already count), that still exist.
    mapfile -t files < <(git log -n "$n" --no-merges --diff-filter=AM --name-only --format= -- 'src/*.cpp' |
        sort -u | while read -r f; do [[ -f $f ]] && echo "$f"; done)
    echo "clang-tidy.sh: ${#files[@]} file(s) of src/ changed by the last $n commits (merges aside)"
elif [[ $# -gt 0 ]]; then files=("$@"); else mapfile -t files < <(find src -name '*.cpp' | sort); fi
[[ ${#files[@]} -gt 0 ]] || { echo "clang-tidy.sh: nothing to check"; exit 0; }
# g++-only flags in the database are unknown to clang: a copy of the database without them (an unknown
# argument is an error that stops the file's analysis), and their warnings dropped.
jobs=$(nproc)
log=$(mktemp)
dbdir=$(mktemp -d)
trap 'rm -rf "$log" "$dbdir"' EXIT
sed -e 's/ -fno-tree-loop-distribute-patterns//g' "$db/compile_commands.json" >"$dbdir/compile_commands.json"
printf '%s\n' "${files[@]}" |
    xargs -P "$jobs" -n 4 clang-tidy -p "$dbdir" --quiet --extra-arg=-Wno-unknown-warning-option \
        --extra-arg=-Wno-unused-command-line-argument --extra-arg=-Wno-unknown-pragmas >"$log" 2>/dev/null || true
if grep -E "(warning|error): .*\[[a-z]" "$log" >/dev/null; then
    grep -E -A3 "(warning|error): " "$log"
    echo "clang-tidy.sh: $(grep -cE '(warning|error): .*\[[a-z]' "$log") finding(s)"
    exit 1
fi
echo "clang-tidy.sh: ${#files[@]} files clean"
