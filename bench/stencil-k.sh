#!/usr/bin/env bash
# Does the deep-halo model pick the right blocking depth k? (prints figures; not a test)
#   bash bench/stencil-k.sh [roofcast binary] [machine file]
# For grid sizes x rank counts x latency settings it runs `roofcast stencil --sweep-k 1..4` and prints the
# predicted best k beside the measured best, whether the prediction is the best or within 5 % of its
# time, and the gain of the measured best k over k = 1; then the fraction of hits. Latency settings:
#  - shm:   ranks on this machine over shared memory, alpha/beta from the machine file's mpi section;
#  - netns: ranks in network namespaces over TCP (scripts/netns-ranks.sh; root only), alpha/beta from a
#           ping-pong (roofcast-mpi-probe) through the same namespaces;
#  - netns1g: the same with every link limited to 1 Gbit/s (tc tbf): halos bandwidth-bound;
#  - simulated: `roofcast stencil --simulate` at 512 ranks for several alpha (the model alone).
# Without a machine file, `roofcast machine --quick` measures one first. Timings on a shared, busy host
# are noisy: read the spreads.
set -uo pipefail
source "$(dirname "$0")/lib/host.sh"
here=$(cd "$(dirname "$0")/.." && pwd)
bin=$(realpath "${1:-$here/build/release/roofcast}")
machine=${2:-}
out=$(mktemp -d)
trap 'bash "$here/scripts/netns-ranks.sh" stop 4 >/dev/null 2>&1; rm -rf "$out"' EXIT
command -v python3 >/dev/null || { echo "stencil-k.sh needs python3" >&2; exit 1; }
command -v mpirun >/dev/null || { echo "stencil-k.sh needs mpirun" >&2; exit 1; }
host_line
[[ -n "$machine" ]] || machine=$(quick_machine "$bin" "$out") || exit 1
probe=$(dirname "$bin")/roofcast-mpi-probe
steps=${STENCIL_STEPS:-16}
reps=${STENCIL_REPS:-5}
printf '%-8s %-10s %5s %-7s %8s %8s %5s %9s %12s %14s\n' kernel grid ranks net pred_k meas_k hit excess gain_meas spread_best
rows="$out/rows.txt"
: >"$rows"
measure() { # kernel grid ranks net [extra args...]
    local kernel=$1 grid=$2 ranks=$3 net=$4
    shift 4
    local f="$out/$kernel-$grid-$ranks-$net.json" attempt ok=0
    # An mpirun through the network namespaces hangs now and then (3-4 launches of 30, with any runner):
    # a launch that did not finish is tried once more, and said so; one that failed otherwise is not.
    for attempt in 1 2; do
        if "$bin" stencil --kernel "$kernel" --grid "$grid" --ranks "$ranks" --sweep-k 1..4 --steps "$steps" \
            --reps "$reps" --machine "$machine" --timeout 60 --json "$@" >"$f" 2>"$out/err.txt"; then
            ok=1
            break
        fi
        grep -q "did not finish within" "$out/err.txt" || break
        [[ $attempt -eq 1 ]] && echo "$kernel $grid $ranks $net: mpirun hung ($(tail -1 "$out/err.txt")); trying once more"
    done
    if [[ $ok -eq 0 ]]; then
        echo "$kernel $grid $ranks $net: failed: $(tail -1 "$out/err.txt")"
        echo "$kernel $grid $ranks $net failed" >>"$out/failed.txt"
        return
    fi
    python3 - "$f" "$kernel" "$grid" "$ranks" "$net" <<'PY' | tee -a "$rows"
import json, sys
j = json.load(open(sys.argv[1]))
m = {r["k"]: r["measured_seconds_per_step"] for r in j["sweep"]}
gain = (m[1] - m[j["best_measured_k"]]) / m[1]
best = next(r["measured_seconds_per_step_spread"] for r in j["sweep"] if r["k"] == j["best_measured_k"])
print(f'{sys.argv[2]:<8} {sys.argv[3]:<10} {sys.argv[4]:>5} {sys.argv[5]:<7} {j["best_predicted_k"]:>8} '
      f'{j["best_measured_k"]:>8} {"yes" if j["predicted_best_hit"] else "no":>5} '
      f'{100 * j["predicted_best_excess"]:>8.1f}% {100 * gain:>11.1f}% '
      f'{100 * best["spread"] if best.get("spread") is not None else float("nan"):>13.1f}%')
PY
}
grids=(32x32x32 64x64x64)
for kernel in jacobi7 himeno; do
    for grid in "${grids[@]}"; do
        for ranks in 2 4; do measure "$kernel" "$grid" "$ranks" shm; done
    done
done

# netns: TCP between namespaces, as it is (latency-bound halos) and with each link limited to 1 Gbit/s by
# tc tbf (bandwidth-bound halos, where deeper halos only add bytes). The rate limit is skipped with its
# reason where tbf is missing.
netns_setting() { # label rate
    local label=$1 rate=$2
    if ! bash "$here/scripts/netns-ranks.sh" start 4 0 $rate >"$out/netns.txt" 2>&1; then
        echo "$label: skipped ($(tail -1 "$out/netns.txt"))"
        bash "$here/scripts/netns-ranks.sh" stop 4 >/dev/null 2>&1
        return
    fi
    margs=$(bash "$here/scripts/netns-ranks.sh" mpirun-args 2)
    # Bounded: a launch through the namespaces must not stall the bench.
    if timeout -k 5 120 mpirun --allow-run-as-root -np 2 $margs "$probe" --out "$out/pp.json" --sizes 8,4096,65536,524288 \
        --samples 7 --min-seconds 0.005 >"$out/pp.txt" 2>&1; then
        read -r alpha beta < <(python3 - "$out/pp.json" <<'PY'
import json, statistics, sys
p = json.load(open(sys.argv[1]))["points"]
t = [statistics.median(x["one_way_seconds"]) for x in p]
alpha = t[0]
beta = (p[-1]["bytes"] - p[0]["bytes"]) / (t[-1] - t[0]) / 1e9
print(alpha, beta)
PY
        )
        echo "$label ping-pong (2 namespaces, TCP${rate:+, $rate}): alpha $alpha s, beta $beta GB/s"
        for kernel in jacobi7 himeno; do
            for grid in 32x32x32 48x48x48; do
                for ranks in 2; do # TCP ranks that busy-poll more than the cores stall on 2 CPUs
                    measure "$kernel" "$grid" "$ranks" "$label" --alpha "$alpha" --beta "$beta" \
                        --mpirun-args "$(bash "$here/scripts/netns-ranks.sh" mpirun-args "$ranks")"
                done
            done
        done
    else
        echo "$label: the ping-pong through the namespaces failed: $(tail -1 "$out/pp.txt")"
    fi
    bash "$here/scripts/netns-ranks.sh" stop 4 >/dev/null
}
if [[ $(id -u) -eq 0 ]]; then
    netns_setting netns ""
    netns_setting netns1g 1gbit
else
    echo "netns: skipped (not root)"
fi

touch "$out/failed.txt"
python3 - "$rows" "$out/failed.txt" <<'PY'
import sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
failed = sum(1 for l in open(sys.argv[2]) if l.strip())
if rows:
    hits = sum(r[6] == "yes" for r in rows)
    gains = [float(r[8].rstrip("%")) for r in rows]
    total = len(rows) + failed
    print(f"predicted best k is the measured best or within 5 %: {hits} of {len(rows)} measured configurations "
          f"({100 * hits / len(rows):.0f} %); {hits} of {total} ({100 * hits / total:.0f} %) counting the "
          f"{failed} that failed as misses; gain of the measured best k over k = 1: max {max(gains):.1f} %")
PY

echo
echo "simulated (model only): jacobi7 256x256x256, 512 ranks (8x8x8), 8 threads per rank, 100 steps"
printf '%12s %8s %10s\n' alpha_us best_k gain
for alpha in 1e-6 1e-5 5e-5 2e-4; do
    "$bin" stencil --simulate --kernel jacobi7 --grid 256x256x256 --ranks 512 --decomp 3d --threads 8 \
        --steps 100 --machine "$machine" --alpha "$alpha" --beta 10 --json >"$out/sim.json" || continue
    python3 - "$out/sim.json" "$alpha" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
print(f'{float(sys.argv[2]) * 1e6:>12.0f} {j["best_predicted_k"]:>8} {100 * j["gain_over_k1"]:>9.1f}%')
PY
done
