# Sourced by the end-to-end scripts that open pages in headless Chromium, after lib/setup.sh (for $work):
#   setup_browser ARGS...   sets $browser, or prints why and exits 77 (skipped) when none is installed;
#                           makes $out, the folder for what the script renders and checks: $ROOFCAST_E2E_KEEP
#                           when set (kept there), else one under $work; ARGS go to every browse
#   browse OUT ERR ARGS...  runs the browser headless with a fresh profile under $work, the ARGS of
#                           setup_browser and these, stdout to OUT and stderr to ERR, within 120 s
setup_browser() {
    browser=""
    for b in chromium chromium-browser google-chrome; do
        if command -v "$b" >/dev/null 2>&1; then
            browser=$(command -v "$b")
            break
        fi
    done
    if [[ -z $browser ]]; then
        echo "SKIP: no headless Chromium installed (install it with: bash scripts/install-deps.sh --tests)"
        exit 77
    fi
    out=${ROOFCAST_E2E_KEEP:-$work/keep}
    mkdir -p "$out"
    browse_args=("$@")
}

browse() {
    local stdout=$1 stderr=$2
    shift 2
    timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-background-networking \
        --disable-component-update --disable-sync --no-first-run --hide-scrollbars \
        --user-data-dir="$(mktemp -d -p "$work")" "${browse_args[@]}" "$@" >"$stdout" 2>"$stderr"
}
