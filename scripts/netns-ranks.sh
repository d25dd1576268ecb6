#!/usr/bin/env bash
# Ranks in network namespaces: N namespaces (roofcast-ns0 .. N-1), each joined to a bridge in the root
# namespace by a veth pair, so that Open MPI's TCP transport carries every halo message through the
# kernel's network stack instead of shared memory. Optional: a one-way delay per message with `tc netem`
# and a rate limit with `tc tbf` on each rank's link. mpirun (root namespace) starts its daemons in the
# namespaces through scripts/netns-rsh-agent.sh. Needs root, iproute2 and network namespaces.
#
#   scripts/netns-ranks.sh start N [DELAY_MS] [RATE]   create (DELAY_MS 0 = no netem; RATE e.g. 1gbit)
#   scripts/netns-ranks.sh mpirun-args N [C]            print the mpirun arguments for `roofcast stencil
#                                                       --mpirun-args "..."` (hostfile and rank file in
#                                                       $TMPDIR; C cores per rank, default 1)
#   scripts/netns-ranks.sh stop N                       remove the namespaces, links and the bridge
#
# Example (docs/stencil.md):
#   sudo scripts/netns-ranks.sh start 2
#   roofcast stencil --kernel jacobi7 --grid 64x64x64 --ranks 2 --sweep-k 1..4 \
#       --mpirun-args "$(scripts/netns-ranks.sh mpirun-args 2)"
#   sudo scripts/netns-ranks.sh stop 2
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
bridge=roofcast-br0
subnet=10.77.0
die() { echo "netns-ranks: error: $*" >&2; exit 1; }

need_tools() {
    command -v ip >/dev/null || die "ip (iproute2) is missing: scripts/install-deps.sh --tests installs it"
    command -v tc >/dev/null || die "tc (iproute2) is missing: scripts/install-deps.sh --tests installs it"
    [[ $(id -u) -eq 0 ]] || die "needs root (network namespaces and links)"
    ip netns add roofcast-probe 2>/dev/null || die "this system forbids network namespaces (ip netns add failed)"
    ip netns del roofcast-probe
}

# Whether a qdisc kind exists in this kernel (netem is a module many small VM kernels lack).
have_qdisc() {
    ip link add roofcast-qp0 type veth peer name roofcast-qp1 || return 1
    local ok=0
    tc qdisc add dev roofcast-qp0 root "$@" 2>/dev/null || ok=1
    ip link del roofcast-qp0
    return $ok
}

start() {
    local n=$1 delay=${2:-0} rate=${3:-}
    [[ $n =~ ^[0-9]+$ && $n -ge 1 && $n -le 200 ]] || die "N: expected 1..200 namespaces, got '$n'"
    [[ $delay =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "DELAY_MS: expected a number of milliseconds, got '$delay'"
    need_tools
    if [[ $delay != 0 ]] && ! have_qdisc netem delay 1ms; then
        die "tc netem is not available in this kernel (no sch_netem): start with DELAY_MS 0 (TCP through the namespaces only)"
    fi
    if [[ -n $rate ]] && ! have_qdisc tbf rate "$rate" burst 64kb latency 100ms; then
        die "RATE: tc tbf refused '$rate' (expected e.g. 1gbit)"
    fi
    ip link show "$bridge" >/dev/null 2>&1 && die "$bridge exists: run '$0 stop N' first"
    ip link add "$bridge" type bridge
    ip addr add "$subnet.254/24" dev "$bridge"
    ip link set "$bridge" up
    for ((i = 0; i < n; i++)); do
        local ns=roofcast-ns$i
        ip netns add "$ns"
        ip link add "rc-veth$i" type veth peer name eth0 netns "$ns"
        ip link set "rc-veth$i" master "$bridge" up
        ip -n "$ns" addr add "$subnet.$((i + 1))/24" dev eth0
        ip -n "$ns" link set eth0 up
        ip -n "$ns" link set lo up
        if [[ $delay != 0 && -n $rate ]]; then
            ip netns exec "$ns" tc qdisc add dev eth0 root handle 1: netem delay "${delay}ms"
            ip netns exec "$ns" tc qdisc add dev eth0 parent 1: handle 2: tbf rate "$rate" burst 64kb latency 100ms
        elif [[ $delay != 0 ]]; then
            ip netns exec "$ns" tc qdisc add dev eth0 root netem delay "${delay}ms"
        elif [[ -n $rate ]]; then
            ip netns exec "$ns" tc qdisc add dev eth0 root tbf rate "$rate" burst 64kb latency 100ms
        fi
    done
    echo "netns-ranks: $n namespaces on $bridge ($subnet.1 .. $subnet.$n), delay ${delay} ms${rate:+, rate $rate}"
}

stop() {
    local n=$1
    for ((i = 0; i < n; i++)); do
        ip netns del "roofcast-ns$i" 2>/dev/null || true
        ip link del "rc-veth$i" 2>/dev/null || true
    done
    ip link del "$bridge" 2>/dev/null || true
    # The daemons' session directories (scripts/netns-rsh-agent.sh).
    for ((i = 0; i < n; i++)); do rm -rf "${TMPDIR:-/tmp}/roofcast-ns$i-$(id -u)"; done
    echo "netns-ranks: removed"
}

# Every namespace's daemon sees the whole machine as a node of its own, so mpirun's default placement would
# bind each rank to the first core of "its" node: all ranks on core 0. A rank file places rank i on
# namespace i and cores (i x C .. i x C + C - 1) mod the cores, C = CORES_PER_RANK (default 1). The daemons
# also share one /tmp: Open MPI's rtc/hwloc component writes the topology into a shared-memory segment
# there, and two daemons doing so at once crashed one of them (orted SIGSEGV in hwloc_shmem_topology_write,
# mpirun then waiting for it: 1 launch in 3 to 8 hung); rtc_hwloc_vmhole none turns that segment off
# (binding stays).
mpirun_args() {
    local n=$1 per=${2:-1}
    [[ $n =~ ^[0-9]+$ && $n -ge 1 && $n -le 200 ]] || die "N: expected 1..200 ranks, got '$n'"
    [[ $per =~ ^[0-9]+$ && $per -ge 1 ]] || die "CORES_PER_RANK: expected an integer >= 1, got '$per'"
    local hosts="${TMPDIR:-/tmp}/roofcast-netns-hosts" ranks="${TMPDIR:-/tmp}/roofcast-netns-rankfile"
    local cores
    cores=$(nproc)
    : >"$hosts"
    : >"$ranks"
    for ((i = 0; i < n; i++)); do
        echo "$subnet.$((i + 1)) slots=1" >>"$hosts"
        local first=$(((i * per) % cores)) slot
        slot=$first
        for ((c = 1; c < per && c < cores; c++)); do slot+=",$(((first + c) % cores))"; done
        echo "rank $i=$subnet.$((i + 1)) slot=$slot" >>"$ranks"
    done
    echo "--hostfile $hosts --rankfile $ranks --mca rtc_hwloc_vmhole none" \
        "--mca plm_rsh_agent $here/netns-rsh-agent.sh --mca plm_rsh_no_tree_spawn 1" \
        "--mca mpi_yield_when_idle 1" \
        "--mca btl tcp,self --mca btl_tcp_if_include $subnet.0/24 --mca oob_tcp_if_include $subnet.0/24"
}

case "${1:-}" in
start) start "${2:?N}" "${3:-0}" "${4:-}" ;;
stop) stop "${2:?N}" ;;
mpirun-args) mpirun_args "${2:?N}" "${3:-1}" ;;
*) die "usage: $0 start N [DELAY_MS] [RATE] | mpirun-args N [CORES_PER_RANK] | stop N" ;;
esac
