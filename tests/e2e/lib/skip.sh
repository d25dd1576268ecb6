# Sourced by lib/setup.sh. A test that lacks a tool or a capability is reported as skipped (exit 77, with
# the reason), never as passed:
#   need TOOL...       exits 77 at once, naming the first TOOL not on PATH (for what the whole test needs)
#   skip_part REASON   a part of the test cannot run here: the script goes on with the other checks, and
#   end_test           then exits 1 when $fail is set, 77 (naming every skipped part) when a part was
#                      skipped, else 0. Scripts with parts that may be skipped end with end_test.
skipped_parts=()
need() {
    local t
    for t in "$@"; do
        command -v "$t" >/dev/null 2>&1 ||
            { echo "skipped: $t is not installed (bash scripts/install-deps.sh --tests installs it)"; exit 77; }
    done
}
skip_part() {
    echo "SKIP-PART: $*"
    skipped_parts+=("$*")
}
end_test() {
    [[ ${fail:-0} -eq 0 ]] || exit 1
    if ((${#skipped_parts[@]} > 0)); then
        printf 'skipped (the other checks passed): %s\n' "${skipped_parts[@]}"
        exit 77
    fi
    exit 0
}
