# Sourced first by every end-to-end script, with the script's arguments (after the script's own `set`
# line: whether a failing command ends the script, -e, is each script's choice):
#   source "$(dirname "$0")/lib/setup.sh" "$@"
# Sets
#   roofcast, bin   the roofcast binary (argument 1)
#   src             the source tree (argument 2; the checkout this file is in when it is not given)
#   tmp, work       a fresh temporary directory, removed when the script exits
#   XDG_CACHE_HOME  $tmp/cache, so that no test reads or fills the user's cache of this host's machine file
#                   (cli/host_machine.hpp; a command without --machine measures into it, or --no-machine)
#   fail=0          for the scripts that note failures and end with `exit $fail` (the others define a
#                   fail function that stops at the first one)
# and defines expect_error (lib/expect_error.sh), need, skip_part and end_test (lib/skip.sh).
roofcast=${1:?usage: bash $0 <roofcast binary> <source dir>}
bin=$roofcast
src=${2:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)}
tmp=$(mktemp -d)
work=$tmp
trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME="$tmp/cache"
fail=0
source "$(dirname "${BASH_SOURCE[0]}")/expect_error.sh"
source "$(dirname "${BASH_SOURCE[0]}")/skip.sh"
