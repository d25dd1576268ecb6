#!/usr/bin/env bash
# Run-to-run repeatability on one host (issue 22 section 7): five `machine --quick` runs back to back, then
# three `bench --suite all` runs, each on its own fresh `machine --quick` file calibrated with
# `bench --calibrate`. Prints each roof's max/min over the machine runs, each kernel's fraction of its mixed
# prediction (predicted time over best measured time) max/min over the bench runs, the same for the median
# over rounds of the fraction against the reference probe beside the kernel (full runs: two or more rounds),
# and the range of the mixed family's median |error|; the usable last level's range over each machine run's window
# (effective_size_range_bytes). The CPU model is the first line.
# Usage: bash bench/repeatability.sh [roofcast binary] [machine runs] [bench runs] [--full]
# (default quick bench runs: `bench --quick`; --full drops --quick from the bench runs)
set -euo pipefail
source "$(dirname "$0")/lib/host.sh"
bin=${1:-build/release/roofcast}
nm=${2:-5}
nb=${3:-3}
bq=--quick
[[ "${4:-}" == "--full" ]] && bq=
host_line
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for i in $(seq 1 "$nm"); do
    "$bin" machine --quick --no-mpi -o "$tmp/m$i.yaml" >/dev/null 2>&1
done
for i in $(seq 1 "$nb"); do
    "$bin" machine --quick --no-mpi -o "$tmp/b$i.yaml" >/dev/null 2>&1
    "$bin" bench --calibrate --quick --machine "$tmp/b$i.yaml" -o "$tmp/c$i.yaml" >/dev/null 2>&1
    "$bin" bench --suite all $bq --machine "$tmp/c$i.yaml" --json "$tmp/r$i.json" >/dev/null 2>&1
done
PYTHONPATH="$(dirname "$0")/lib" python3 - "$tmp" "$nm" "$nb" "${bq:-full}" <<'PY'
import json, statistics, sys, yaml
from results import family_inside, prediction, round_error_pct
tmp, nm, nb, mode = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
roofs = {}
windows = []
for i in range(1, nm + 1):
    m = yaml.safe_load(open(f"{tmp}/m{i}.yaml"))
    for c in m.get("topology", {}).get("caches", []):
        if c is m["topology"]["caches"][-1] and "effective_size_range_bytes" in c:
            lo, hi = c["effective_size_range_bytes"]
            windows.append(f"{c['name']} {lo / 2**20:.2f}-{hi / 2**20:.2f}")
    for p, v in m["compute"]["peak_gflops"].items():
        roofs.setdefault(f"peak {p} GFLOP/s", []).append(v)
    for l in m["levels"]:
        if "bandwidth_gbs" in l:
            roofs.setdefault(f"{l['name']} GB/s", []).append(l["bandwidth_gbs"])
        if "size_bytes" in l and l["name"] != "L1":
            roofs.setdefault(f"{l['name']} size MiB", []).append(l["size_bytes"] / 2**20)
print(f"machine --quick x{nm}: roof  min  max  max/min")
for k, v in roofs.items():
    print(f"  {k:22s} {min(v):9.2f} {max(v):9.2f}  {max(v)/min(v):.3f}")
if windows:
    print("  usable last level over each run's window (MiB): " + "; ".join(windows))
fr, rd, med, med_round, val = {}, {}, [], [], []
for i in range(1, nb + 1):
    r = json.load(open(f"{tmp}/r{i}.json"))
    # The family's median |error| over its members inside the mixed model's validity (as bench/accuracy.sh),
    # from the best epoch and from each member's per-round verdict (|1/f - 1|, median over the rounds).
    fam = family_inside(r)
    if fam:
        med.append(statistics.median(abs(prediction(k, "mixed")["error_pct"]) for k in fam))
    e_round = [e for k in fam if (e := round_error_pct(k)) is not None]
    if e_round:
        med_round.append(statistics.median(e_round))
    for k in r["kernels"]:
        best = k["measured"]["seconds"]["min"]
        for p in k["predictions"]:
            if p["model"] == "mixed" and best > 0:
                fr.setdefault(k["name"], []).append(p["seconds_per_iteration"] * k["iterations"] / best)
        if k.get("bound_fraction_median_round") is not None:
            rd.setdefault(k["name"], []).append(k["bound_fraction_median_round"])
    for a in r["accuracy"]:
        if a["model"] == "mixed" and a["median_abs_error_pct"] is not None:
            val.append(a["median_abs_error_pct"])
ratios = sorted((max(v) / min(v), k) for k, v in fr.items() if len(v) == nb)
print(f"bench --suite all ({mode}) x{nb}: fraction of the mixed prediction, max/min per kernel")
for q, k in ratios:
    print(f"  {k:28s} {q:.3f}")
if ratios:
    print(f"  median kernel {statistics.median(q for q, _ in ratios):.3f}, worst {ratios[-1][0]:.3f} ({ratios[-1][1]})")
rounds = sorted((max(v) / min(v), k) for k, v in rd.items() if len(v) == nb and min(v) > 0)
if rounds:
    print(f"the same, median over rounds of the fraction against the probe beside the kernel (its bound prediction)")
    print(f"  median kernel {statistics.median(q for q, _ in rounds):.3f}, worst {rounds[-1][0]:.3f} ({rounds[-1][1]})")
if med:
    print(f"mixed family median |error|: {min(med):.1f} - {max(med):.1f} % (range {max(med)-min(med):.1f} points)")
if med_round:
    print(f"  the same per round against the probes beside each member: {min(med_round):.1f} - {max(med_round):.1f} % "
          f"(range {max(med_round)-min(med_round):.1f} points)")
if val:
    print(f"mixed model over the validation kernels, median |error|: {min(val):.1f} - {max(val):.1f} % "
          f"(range {max(val)-min(val):.1f} points)")
PY
