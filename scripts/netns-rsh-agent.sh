#!/usr/bin/env bash
# The rsh agent Open MPI's launcher calls (plm_rsh_agent) for ranks placed by scripts/netns-ranks.sh: the
# "host" is a namespace's address 10.77.0.(i+1); the command runs inside namespace roofcast-ns<i>.
set -euo pipefail
while [[ $# -gt 0 && $1 == -* ]]; do shift; done # ssh-style options are not needed here
host=${1:?host}
shift
[[ $host =~ ^10\.77\.0\.([0-9]+)$ ]] || { echo "netns-rsh-agent: unknown host '$host'" >&2; exit 1; }
exec ip netns exec "roofcast-ns$((BASH_REMATCH[1] - 1))" /bin/sh -c "$*"
