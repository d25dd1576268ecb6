# Sourced by lib/setup.sh for the end-to-end scripts (needs $roofcast and a `fail` variable):
#   expect_error SUBCOMMAND PATTERN ARGS...
# runs `$roofcast SUBCOMMAND ARGS...` and sets fail=1 unless it exits non-zero with exactly one
# "roofcast: error:" line on stderr containing PATTERN (a fixed string).
expect_error() {
    local sub=$1 pattern=$2
    shift 2
    local out rc
    out=$("$roofcast" "$sub" "$@" 2>&1 >/dev/null)
    rc=$?
    if [[ $rc -eq 0 ]]; then echo "exit 0 for: $sub $*"; fail=1; fi
    if ! grep -qF -- "$pattern" <<<"$out"; then echo "no '$pattern' in error for $sub $*: $out"; fail=1; fi
    if [[ $(grep -c "roofcast: error:" <<<"$out") -ne 1 ]]; then
        echo "not one error line for $sub $*: $out"
        fail=1
    fi
}
