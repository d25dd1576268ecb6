#!/usr/bin/env python3
"""Writes the report test fixtures: a hand-entered 2-core AVX-512 machine (machine.yaml) and a results file
(results.json) with six kernels predicted by four models. The figures are plausible for a 2-core cloud VM of an
Ice Lake server part; they are test data, not measurements. Prediction formulas (per iteration, F flops,
b_L bytes at level L, B_L bandwidth, P the 2-thread AVX-512 FMA ceiling):
  roofline      T = max(F/P, b_MEM/B_MEM)                      (Williams et al. 2009, eq. 1)
  hierarchical  T = max(F/P, max_L b_L/B_L)
  cache-aware   T = max(F/P, sum_L b_L/B_L)                    (no overlap between levels)
  mixed         T = max(F/P, b_MEM/B_MEM + 0.5 sum_{L!=MEM} b_L/B_L)
Run from this directory: python3 make_fixtures.py"""
import json
import statistics

import yaml


def summary(samples):
    med = statistics.median(samples)
    return {"median": med, "min": min(samples), "max": max(samples), "n": len(samples), "samples": samples}


def around(v, rel):
    """Five samples spread by +-rel around v (relative spread 2*rel)."""
    return [round(v * f, 6) for f in (1 - rel, 1 - rel / 2, 1, 1 + rel / 2, 1 + rel)]


KiB, MiB = 1024, 1024 * 1024
bw = {  # level -> {threads: GB/s} (kernel: load for caches, triad for MEM)
    "L1": {1: 188.0, 2: 370.0}, "L2": {1: 79.5, 2: 155.0}, "L3": {1: 38.2, 2: 62.0}, "MEM": {1: 14.2, 2: 17.8}}
kern = {"L1": "load", "L2": "load", "L3": "load", "MEM": "triad"}
ceil = {  # (isa, op) -> {threads: GFLOP/s}
    ("scalar", "fma"): {1: 11.0, 2: 21.9}, ("scalar", "add"): {1: 5.55, 2: 11.1},
    ("scalar", "addmul"): {1: 5.5, 2: 10.9}, ("avx2", "fma"): {1: 44.1, 2: 87.9},
    ("avx2", "add"): {1: 22.2, 2: 44.0}, ("avx2", "addmul"): {1: 22.0, 2: 43.8},
    ("avx512", "fma"): {1: 86.5, 2: 171.0}, ("avx512", "add"): {1: 43.5, 2: 86.0},
    ("avx512", "addmul"): {1: 43.0, 2: 85.1}}

levels = []
for name, per in bw.items():
    lv = {"name": name, "bandwidth_gbs": per[1], "bandwidth_kernel": kern[name], "source": "measured",
          "bandwidth": summary(around(per[1], 0.01)),
          "measurements": [{"kernel": kern[name], "threads": t, "working_set_bytes": ws,
                            "gbs": summary(around(v, 0.012 if t == 1 else 0.02)), "moved_per_requested": 1.0}
                           for t, v in per.items()
                           for ws in [{"L1": 16 * KiB, "L2": 512 * KiB, "L3": 8 * MiB, "MEM": 512 * MiB}[name]]]}
    if name != "MEM":
        lv["size_bytes"] = {"L1": 48 * KiB, "L2": 1280 * KiB, "L3": 16 * MiB}[name]
    levels.append(lv)

# Bandwidth vs working set: plateau of the level the working set fits in, with soft transitions.
edges = [("L1", 48 * KiB), ("L2", 1280 * KiB), ("L3", 16 * MiB)]


def sweep_value(ws, threads, kernel):
    scale = 1.0 if kernel == "load" else 0.82
    value = bw["MEM"][threads] * (1.0 if kernel == "triad" else 1.12)
    for name, size in reversed(edges):
        fill = min(1.0, max(0.0, (2.0 * size - ws) / size))  # 1 below the size, 0 above twice the size
        value = fill * bw[name][threads] * scale + (1 - fill) * value
    return round(value, 2)


sweep = []
for kernel, threads in (("load", 1), ("load", 2), ("triad", 1)):
    ws = 4 * KiB
    while ws <= 256 * MiB:
        rel = 0.04 if (kernel, threads, ws) == ("load", 2, 16 * MiB) else 0.008
        sweep.append({"kernel": kernel, "threads": threads, "working_set_bytes": ws,
                      "gbs": summary(around(sweep_value(ws, threads, kernel), rel)), "moved_per_requested": 1.0})
        ws *= 2

machine = {
    "format_version": 1, "name": "fixture-icx-2c", "created": "2026-11-21T10:00:00Z", "roofcast_version": "0.1.0",
    "source": "measured",
    "topology": {"cpu_model": "Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz", "isa": ["scalar", "avx2", "avx512"],
                 "packages": 1, "cores": 2, "hw_threads": 2, "numa_nodes": 1,
                 "caches": [{"name": "L1", "size_bytes": 48 * KiB, "line_bytes": 64, "associativity": 12,
                             "shared_by_cores": 1, "instances": 2},
                            {"name": "L2", "size_bytes": 1280 * KiB, "line_bytes": 64, "associativity": 20,
                             "shared_by_cores": 1, "instances": 2},
                            {"name": "L3", "size_bytes": 54 * MiB, "line_bytes": 64, "associativity": 12,
                             "shared_by_cores": 2, "instances": 1, "effective_size_bytes": 16 * MiB,
                             "note": "the sweep leaves the L3 plateau at 16 MiB (VM share of the cache)"}]},
    "clock_ghz": summary([2.88, 2.9, 2.95, 3.05, 3.08]), "tsc_ghz": 2.9, "clock_drift": True,
    "compute": {"peak_gflops": {"double": 185.6, "single": 371.2},
                "ceilings": [{"precision": "double", "isa": isa, "op": op, "threads": t,
                              "gflops": summary(around(v, 0.01 if (isa, op, t) != ("scalar", "add", 2) else 0.07)),
                              "ghz": 2.9, "source": "measured"}
                             for (isa, op), per in ceil.items() for t, v in per.items()]},
    "levels": levels, "sweep": sweep,
    "notes": ["clock varied by 6.9 % during the run (2.88-3.08 GHz)"]}

with open("machine.yaml", "w") as f:
    f.write("# Test fixture for the report writers (see make_fixtures.py); not a measurement.\n")
    yaml.safe_dump(machine, f, sort_keys=False, default_flow_style=None, width=120)

P = ceil[("avx512", "fma")][2]
B = {name: per[2] for name, per in bw.items()}
kernels_in = [  # name, suite, F, bytes per level, measured GFLOP/s, relative sample spread/2, notes
    ("stream_triad", "stream", 2, {"L1": 32, "L2": 32, "L3": 32, "MEM": 32}, 1.05, 0.01, []),
    ("stream_copy", "stream", 0, {"L1": 24, "L2": 24, "L3": 24, "MEM": 24}, 0.0, 0.0,
     ["0 flops per iteration: no arithmetic intensity"]),
    ("daxpy_l2", "calibrate", 2, {"L1": 24, "L2": 24}, 11.6, 0.01, ["working set 512 KiB (fits in L2)"]),
    ("dot_product", "stream", 2, {"L1": 16, "L2": 16, "L3": 16, "MEM": 16}, 2.31, 0.015, []),
    ("stencil_3d7pt", "apps", 8, {"L1": 64, "L2": 40, "L3": 24, "MEM": 16}, 7.4, 0.04, []),
    ("dgemm_blocked", "apps", 2, {"L1": 8, "L2": 2, "L3": 0.25, "MEM": 0.05}, 88.0, 0.01, []),
]
kernels = []
for name, suite, F, b, meas, rel, notes in kernels_in:
    terms = [{"level": L, "bytes_per_iteration": v, "intensity": (F / v if v > 0 else None), "bandwidth_gbs": B[L],
              "bandwidth_source": f"measured {kern[L]} (2 threads)", "seconds_per_iteration": v / (B[L] * 1e9)}
             for L, v in b.items()]
    t = {x["level"]: x["seconds_per_iteration"] for x in terms}
    tc = F / (P * 1e9)
    caches = sum(v for L, v in t.items() if L != "MEM")
    model_t = {"roofline": (max(tc, t.get("MEM", 0)), ["MEM"] if t.get("MEM", 0) > tc else []),
               "hierarchical": (max([tc] + list(t.values())), None),
               "cache-aware": (max(tc, sum(t.values())), None),
               "mixed": (max(tc, t.get("MEM", 0) + 0.5 * caches), None)}
    preds = []
    for model, (T, _) in model_t.items():
        if model == "roofline":
            used = [x for x in terms if x["level"] == "MEM"]
            bott = "MEM" if t.get("MEM", 0) > tc else "compute"
        elif model == "hierarchical":
            used = terms
            worst = max(t, key=t.get) if t else None
            bott = worst if worst and t[worst] > tc else "compute"
        else:
            used = terms
            bott = ("MEM" if "MEM" in t else max(t, key=t.get)) if T > tc else "compute"
        g = F / T / 1e9 if T > 0 else 0.0
        p = {"model": model, "seconds_per_iteration": T, "gflops": g, "peak_fraction": g / 185.6,
             "bottleneck": bott, "valid": True, "notes": [], "terms": used,
             "error_pct": ((g - meas) / meas * 100) if meas > 0 else None}
        if model == "mixed" and name == "dgemm_blocked":
            p["valid"] = False
            p["notes"] = ["L1_long = 14.0 exceeds 8 x (n_MEM + n_cache) = 8.0: outside the mixed model's validity"]
        preds.append(p)
    meas_s = summary(around(meas, rel)) if meas > 0 else {"median": 0.0, "min": 0.0, "max": 0.0, "n": 5}
    gbs = summary(around(round(meas / F * b["MEM"], 4), rel)) if F > 0 and "MEM" in b else None
    if name == "stream_copy":
        gbs = summary(around(16.1, 0.01))
    measured = {"gflops": meas_s}
    if gbs:
        measured["gbs"] = gbs
    kernels.append({"name": name, "suite": suite, "precision": "double", "threads": 2, "flops_per_iteration": F,
                    "iterations": 1e6, "bytes_per_iteration": b, "measured": measured, "predictions": preds,
                    "notes": notes})


def accuracy(model):
    errs = sorted(abs(p["error_pct"]) for k in kernels for p in k["predictions"]
                  if p["model"] == model and p["valid"] and p["error_pct"] is not None)
    return {"model": model, "n": len(errs), "median_abs_error_pct": statistics.median(errs) if errs else None,
            "max_abs_error_pct": max(errs) if errs else None}


results = {"format_version": 1, "kind": "roofcast-results", "roofcast_version": "0.1.0",
           "created": "2026-11-21T10:05:00Z", "kernels": kernels,
           "accuracy": [accuracy(m) for m in ("roofline", "hierarchical", "cache-aware", "mixed")],
           "notes": ["fixture for the report tests"], "machine": machine}
with open("results.json", "w") as f:
    json.dump(results, f, indent=1)
    f.write("\n")
