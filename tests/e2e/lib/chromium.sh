# Sourced by the end-to-end scripts that open pages in headless Chromium.
#   find_browser          sets $browser, or prints why and exits 77 (skipped) when none is installed
#   run_browser OUT ERR ARGS...   runs it headless with a fresh profile under $work (which the caller
#                         makes and removes), stdout to OUT and stderr to ERR, within 120 s
find_browser() {
    browser=""
    for b in chromium chromium-browser google-chrome; do
        if command -v "$b" >/dev/null 2>&1; then
            browser=$(command -v "$b")
            return
        fi
    done
    echo "SKIP: no headless Chromium installed (install it with: bash scripts/install-deps.sh --tests)"
    exit 77
}

run_browser() {
    local stdout=$1 stderr=$2
    shift 2
    timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-background-networking \
        --disable-component-update --disable-sync --no-first-run --hide-scrollbars \
        --user-data-dir="$(mktemp -d -p "$work")" "$@" >"$stdout" 2>"$stderr"
}
