#!/usr/bin/env bash
# End to end: `roofcast machine --quick` writes a valid machine file with measured levels,
# prints the summary table, and `roofcast validate` accepts the file; --json prints the same content.
set -euo pipefail
source "$(dirname "$0")/lib/setup.sh" "$@"
need python3
python3 -c 'import yaml' 2>/dev/null ||
    { echo "skipped: python3-yaml is not installed (bash scripts/install-deps.sh --tests installs it)"; exit 77; }
# Without mpirun the file must say why MPI was not measured (checked below), but the ping-pong is not.
command -v mpirun >/dev/null || skip_part "no mpirun (openmpi-bin): the MPI ping-pong was not measured"

"$roofcast" machine --quick --kernels load,triad -o "$tmp/m.yaml" --json >"$tmp/out.json"
test -s "$tmp/m.yaml" || { echo "no machine file written"; exit 1; }
"$roofcast" validate "$tmp/m.yaml" | grep -q ": ok (machine file" || { echo "validate rejected the file"; exit 1; }
python3 - "$tmp/m.yaml" "$tmp/out.json" <<'PY'
import json, sys, yaml
m = yaml.safe_load(open(sys.argv[1]))
j = json.load(open(sys.argv[2]))
assert m["format_version"] == 1 and m["source"] == "measured", "format_version/source"
names = [l["name"] for l in m["levels"]]
assert names[0] == "L1" and names[-1] == "MEM", names
for l in m["levels"]:
    assert l["bandwidth_gbs"] > 0 and l["bandwidth_kernel"] == "triad", l["name"]
    kernels = {p["kernel"] for p in l["measurements"]}
    assert kernels == {"load", "triad"}, kernels
assert {p["kernel"] for p in m["sweep"]} == {"load", "triad"}
# Each level's curve is the part of the roof kernel's sweep (most threads, medians) the level serves.
tmax = max(p["threads"] for p in m["sweep"])
swept = {(p["working_set_bytes"], p["gbs"]["median"]) for p in m["sweep"]
         if p["kernel"] == "triad" and p["threads"] == tmax}
ends = []
for l in m["levels"]:
    c = l.get("curve")
    assert c and c["x"] == "working_set" and len(c["points"]) >= 2, ("curve", l["name"])
    xs = [x for x, _ in c["points"]]
    assert xs == sorted(xs), ("unsorted curve", l["name"])
    assert all((x, y) in swept for x, y in c["points"]), ("curve point not in the sweep", l["name"])
    ends.append((xs[0], xs[-1]))
assert all(a[1] <= b[0] for a, b in zip(ends, ends[1:])), ("curves overlap", ends)
assert len(m["thread_overhead"]) >= 2
assert [l["name"] for l in j["levels"]] == names, "JSON and YAML differ"
# MPI: with mpirun installed the ping-pong must have run; otherwise the notes say why it did not.
import shutil
mpi_note = [n for n in m.get("notes", []) if n.startswith("MPI:")]
assert len(mpi_note) == 1, mpi_note
if shutil.which("mpirun"):
    mp = m.get("mpi")
    assert mp and mp["source"] == "measured", ("no MPI figures although mpirun exists", mpi_note)
    sizes = [p["bytes"] for p in mp["points"]]
    assert len(sizes) >= 2 and sizes == sorted(sizes), sizes
    assert all(p["seconds"]["median"] > 0 and p["seconds"]["n"] >= 3 for p in mp["points"])
    assert mp["latency_s"]["median"] == mp["points"][0]["seconds"]["median"]
    assert mp["bandwidth_gbs"]["median"] > 0 and mp["beta_gbs"] > 0 and mp["alpha_s"] >= 0
    print("MPI:", mpi_note[0])
else:
    assert "mpi" not in m and "not measured" in mpi_note[0], mpi_note
    print("no mpirun:", mpi_note[0])
# Stream capacity: MEM and the last cache level, read and write, the quick stream counts, positive medians.
sc = {(e["level"], e["access"]): e for e in m["stream_capacity"]}
assert set(sc) == {(names[-2], "read"), (names[-2], "write"), ("MEM", "read"), ("MEM", "write")}, sorted(sc)
for e in sc.values():
    assert [p["streams"] for p in e["points"]] == [1, 2, 4, 8, 16, 32], e["points"]
    assert all(p["gbs"]["median"] > 0 and p["gbs"]["n"] == len(p["gbs"]["samples"]) for p in e["points"])
    best = max(p["gbs"]["median"] for p in e["points"])
    want = max(p["streams"] for p in e["points"] if p["gbs"]["median"] >= 0.9 * best)
    assert e["capacity"] == want, (e["level"], e["access"], e["capacity"], want)
    assert e["threads"] == tmax and e["working_set_bytes"] > 0
assert len(j["stream_capacity"]) == 4, "JSON and YAML differ"
print("machine file ok:", names)
PY
# The table prints the stream capacity; --no-stream-capacity leaves it out.
small=(machine --quick --kernels load --threads 1 --isa scalar --max-size 1MiB --no-mpi)
"$roofcast" "${small[@]}" -o "$tmp/t.yaml" >"$tmp/table.txt"
grep -q "^Stream capacity" "$tmp/table.txt" || { echo "no stream capacity table"; exit 1; }
"$roofcast" "${small[@]}" --no-stream-capacity -o "$tmp/n.yaml" >/dev/null
if grep -q "stream_capacity" "$tmp/n.yaml"; then echo "--no-stream-capacity still measured it"; exit 1; fi
end_test
