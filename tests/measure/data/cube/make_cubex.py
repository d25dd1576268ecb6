#!/usr/bin/env python3
"""Writes small CUBE4 (.cubex) fixtures by the format's documentation (CubeLib's "Cube4 file format", as
Extra-P's pyCubexR reads it) and the values a reader must find in them, computed here on their own:

  small.cubex            2 processes x 2 threads; metrics visits (UINT64, exclusive, sparse index), time
                         (DOUBLE, inclusive), bytes (INT64, exclusive, zlib-compressed data), a derived
                         metric without data; a call path reached from two call sites; little-endian
  big-endian.cubex       the same tree and values, written big-endian
  small.expected.json    per metric, call path and location: exclusive and inclusive values
  experiments/           a directory of Score-P experiments mm.p<P>size1024.r<R>/profile.cubex, as Extra-P
                         reads one, and experiments.expected.json: the per-point samples under weak scaling
                         and the sums under strong scaling

  python3 make_cubex.py        (rewrites everything beside this script; deterministic)
"""
import io
import json
import os
import shutil
import struct
import tarfile
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))

# Call tree: (region, children), numbered depth first from 0 as Score-P numbers cnodes.
REGIONS = ["main", "foo", "bar", "baz"]
TREE = ("main", [("foo", [("bar", [])]), ("bar", []), ("baz", [("bar", [])]), ("foo", [])])
LOCATIONS = [(0, 0), (0, 1), (1, 0), (1, 1)]  # (process rank, thread rank), location Id = position


def flatten(tree):
    """Depth-first nodes: (region, parent index, child indices)."""
    nodes = []

    def walk(node, parent):
        index = len(nodes)
        nodes.append([node[0], parent, []])
        if parent is not None:
            nodes[parent][2].append(index)
        for child in node[1]:
            walk(child, index)

    walk(tree, None)
    return nodes


NODES = flatten(TREE)


def paths():
    out = []
    for region, parent, _ in NODES:
        out.append(region if parent is None else out[parent] + "->" + region)
    return out


def wide_order():
    """pyCubexR's _wide_enumeration: a node's children are numbered when the node is expanded."""
    order = [0]
    stack = [0]
    while stack:
        n = stack.pop()
        order.extend(NODES[n][2])
        stack.extend(reversed(NODES[n][2]))
    return order


def values(metric, scale):
    """The stored value of a metric per node and location (None: no data for that node)."""
    out = []
    for n in range(len(NODES)):
        if metric == "visits":
            out.append(None if n == 5 else [float((n + 1) * (l + 1) * scale) for l in range(len(LOCATIONS))])
        elif metric == "bytes":
            out.append([float(1000 * n + 10 * l) * scale for l in range(len(LOCATIONS))])
        else:  # time: stored inclusive, so built from exclusive times added up the tree below
            out.append(None)
    if metric == "time":
        excl = [[0.1 * (n + 1) + 0.01 * l * scale for l in range(len(LOCATIONS))] for n in range(len(NODES))]
        incl = inclusive_of(excl)
        return incl
    return out


def inclusive_of(excl):
    """Inclusive from exclusive, children added in order (the order a reader adds them in)."""
    incl = [list(row) if row is not None else [0.0] * len(LOCATIONS) for row in excl]
    for n in reversed(range(len(NODES))):
        for c in NODES[n][2]:
            for l in range(len(LOCATIONS)):
                incl[n][l] += incl[c][l]
    return incl


def exclusive_of(incl):
    excl = [list(row) for row in incl]
    for n in range(len(NODES)):
        for c in NODES[n][2]:
            for l in range(len(LOCATIONS)):
                excl[n][l] -= incl[c][l]
    return excl


METRICS = [  # id, name, type, dtype, uom
    (0, "visits", "EXCLUSIVE", "UINT64", "occ"),
    (1, "time", "INCLUSIVE", "DOUBLE", "sec"),
    (2, "bytes", "EXCLUSIVE", "INT64", "bytes"),
]


def anchor():
    metrics = "".join(
        f'<metric id="{i}" type="{t}"><disp_name>{n}</disp_name><uniq_name>{n}</uniq_name>'
        f"<dtype>{d}</dtype><uom>{u}</uom><descr>{n}</descr></metric>" for i, n, t, d, u in METRICS)
    metrics += ('<metric id="3" type="POSTDERIVED"><disp_name>ratio</disp_name><uniq_name>ratio</uniq_name>'
                "<dtype>DOUBLE</dtype><uom></uom><cubepl>metric::bytes()/metric::visits()</cubepl></metric>")
    regions = "".join(f'<region id="{i}" mod="app.c" begin="1" end="9"><name>{r}</name></region>'
                      for i, r in enumerate(REGIONS))

    def cnode(n):
        region = REGIONS.index(NODES[n][0])
        return f'<cnode id="{n}" calleeId="{region}">' + "".join(cnode(c) for c in NODES[n][2]) + "</cnode>"

    groups = ""
    for p in sorted({p for p, _ in LOCATIONS}):
        locs = "".join(f'<location Id="{i}"><name>thread {t}</name><rank>{t}</rank><type>thread</type></location>'
                       for i, (q, t) in enumerate(LOCATIONS) if q == p)
        groups += f'<locationgroup Id="{p}"><name>rank {p}</name><rank>{p}</rank><type>process</type>{locs}</locationgroup>'
    system = (f'<systemtreenode Id="0"><name>machine</name><class>machine</class>'
              f'<systemtreenode Id="1"><name>node</name><class>node</class>{groups}</systemtreenode></systemtreenode>')
    return ('<?xml version="1.0" encoding="UTF-8"?>\n<cube version="4.4">'
            '<attr key="CUBE_CT_AGGR" value="SUM"/>'
            f"<metrics>{metrics}</metrics><program>{regions}{cnode(0)}</program><system>{system}</system></cube>\n")


def pack(dtype, endian, vals):
    code = {"UINT64": "Q", "INT64": "q", "DOUBLE": "d"}[dtype]
    if code in "Qq":
        vals = [int(v) for v in vals]
    return struct.pack(f"{endian}{len(vals)}{code}", *vals)


def metric_files(i, mtype, dtype, stored, endian, compress):
    order = list(range(len(NODES))) if mtype == "EXCLUSIVE" else wide_order()
    tree_indices = [t for t, n in enumerate(order) if stored[n] is not None]
    index = (b"CUBEX.INDEX" + struct.pack(f"{endian}ihbi", 1, 1, 0, len(tree_indices)) +
             struct.pack(f"{endian}{len(tree_indices)}i", *tree_indices))
    flat = [v for t in tree_indices for v in stored[order[t]]]
    raw = pack(dtype, endian, flat)
    if not compress:
        return index, b"CUBEX.DATA" + raw
    half = len(raw) // 2  # two chunks
    chunks = [zlib.compress(raw[:half]), zlib.compress(raw[half:])]
    headers = struct.pack(f"{endian}q", len(chunks))
    pos = 0
    for k, c in enumerate(chunks):
        headers += struct.pack(f"{endian}qqq", half * k, pos, len(c))
        pos += len(c)
    return index, b"ZCUBEX.DATA" + headers + b"".join(chunks)


def write_cubex(path, endian, scale):
    members = [("anchor.xml", anchor().encode())]
    for i, name, mtype, dtype, _ in METRICS:
        index, data = metric_files(i, mtype, dtype, values(name, scale), endian, compress=(name == "bytes"))
        members += [(f"{i}.index", index), (f"{i}.data", data)]
    with tarfile.open(path, "w", format=tarfile.USTAR_FORMAT) as tar:
        for name, content in members:
            info = tarfile.TarInfo(name)
            info.size = len(content)
            info.mtime = 0
            tar.addfile(info, io.BytesIO(content))


def expected(scale):
    """metric -> path -> {"exclusive": [per location], "inclusive": [...]}, call paths of two sites added."""
    out = {}
    for _, name, mtype, _, _ in METRICS:
        stored = values(name, scale)
        if mtype == "EXCLUSIVE":
            excl = [row if row is not None else [0.0] * len(LOCATIONS) for row in stored]
            incl = inclusive_of(stored)
        else:
            incl = stored
            excl = exclusive_of(stored)
        per_path = {}
        for n, p in enumerate(paths()):
            entry = per_path.setdefault(p, {"exclusive": [0.0] * len(LOCATIONS), "inclusive": [0.0] * len(LOCATIONS)})
            for l in range(len(LOCATIONS)):
                entry["exclusive"][l] += excl[n][l]
                entry["inclusive"][l] += incl[n][l]
        out[name] = per_path
    return out


def main():
    write_cubex(os.path.join(HERE, "small.cubex"), "<", 1)
    write_cubex(os.path.join(HERE, "big-endian.cubex"), ">", 1)
    with open(os.path.join(HERE, "small.expected.json"), "w") as f:
        json.dump({"locations": [f"rank {p} thread {t}" for p, t in LOCATIONS], "metrics": expected(1)}, f,
                  indent=1, sort_keys=True)
        f.write("\n")
    exp = os.path.join(HERE, "experiments")
    shutil.rmtree(exp, ignore_errors=True)
    weak, strong = {}, {}
    for p, reps in ((2, 2), (4, 1), (8, 1), (16, 1)):
        for r in range(1, reps + 1):
            scale = p * r
            folder = os.path.join(exp, f"mm.p{p}size1024.r{r}")
            os.makedirs(folder)
            write_cubex(os.path.join(folder, "profile.cubex"), "<", scale)
            for name, per_path in expected(scale).items():
                for path, v in per_path.items():
                    key = f"{path} {name}"
                    weak.setdefault(key, {}).setdefault(str(p), []).extend(v["exclusive"])
                    total = 0.0
                    for x in v["exclusive"]:
                        total += x
                    strong.setdefault(key, {}).setdefault(str(p), []).append(total)
    with open(os.path.join(HERE, "experiments.expected.json"), "w") as f:
        json.dump({"parameters": ["p"], "weak": weak, "strong": strong}, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
