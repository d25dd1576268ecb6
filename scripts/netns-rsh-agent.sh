#!/usr/bin/env bash
# The rsh agent Open MPI's launcher calls (plm_rsh_agent) for ranks placed by scripts/netns-ranks.sh: the
# "host" is a namespace's address 10.77.0.(i+1); the command runs inside namespace roofcast-ns<i>.
set -euo pipefail
while [[ $# -gt 0 && $1 == -* ]]; do shift; done # ssh-style options are not needed here
host=${1:?host}
shift
[[ $host =~ ^10\.77\.0\.([0-9]+)$ ]] || { echo "netns-rsh-agent: unknown host '$host'" >&2; exit 1; }
ns=roofcast-ns$((BASH_REMATCH[1] - 1))
# Every namespace's daemon calls itself by this machine's host name, so by default they all keep their
# session directories under one /tmp/ompi.<host>.<uid>/ and create them at the same moment: under load one
# failed with "mkdir ... File exists" and mpirun waited for it. A directory of the namespace's own keeps them
# apart (Open MPI's orte_tmpdir_base, read from the environment by the daemon and passed to its ranks).
tmp="${TMPDIR:-/tmp}/$ns-$(id -u)"
mkdir -p "$tmp"
export OMPI_MCA_orte_tmpdir_base="$tmp"
exec ip netns exec "$ns" /bin/sh -c "$*"
