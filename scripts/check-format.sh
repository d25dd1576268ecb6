#!/usr/bin/env bash
# Fails when a C++ source is not formatted with the committed .clang-format.
set -euo pipefail
cd "$(dirname "$0")/.."
files=$(git ls-files '*.cpp' '*.hpp' '*.h' '*.in' | grep -E '\.(cpp|hpp|h)$' || true)
[[ -z "$files" ]] && exit 0
# shellcheck disable=SC2086
clang-format --dry-run -Werror $files
echo "check-format: $(echo "$files" | wc -w) files formatted"
