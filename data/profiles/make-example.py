#!/usr/bin/env python3
"""Writes the synthetic example profiles of this directory (deterministic; rerun to regenerate).

A strong-scaling run of a made-up solver at 8..128 ranks plus a measured "target" run at 256 ranks,
in the roofcast profile format (docs/formats-profile.md), and a two-parameter CSV (cores x size).
Every value is a closed-form function of the rank count with +-1.5 % pseudo-noise, so the files are
small test inputs, not measurements of any machine.
"""
import json
import math
import random

rng = random.Random(20261121)


def noisy(v):
    return v * (1 + rng.uniform(-0.015, 0.015))


FUNCS = {
    "main->init": lambda p: 0.8,
    "main->solve->dot": lambda p: 0.5 + 40.0 / p,
    "main->solve->halo": lambda p: 0.1 + 0.02 * math.log2(p),
    "main->solve->allreduce": lambda p: 2e-4 * p * math.log2(p),
    "main->io": lambda p: 0.3 + 0.002 * p,
}
L1_TOTAL = lambda p: 1.0e9 + 2.0e6 * p  # L1 data-cache misses summed over ranks


def profile(p, skip_io=False):
    funcs = []
    for name, f in FUNCS.items():
        if skip_io and name == "main->io":
            continue
        metrics = {"time": {"repetitions": [round(noisy(f(p)), 6) for _ in range(3)]}}
        if name == "main->solve->dot":
            metrics["PAPI_L1_DCM"] = {
                "aggregate": "sum",
                "per_rank": [[round(noisy(L1_TOTAL(p) / p)) for _ in range(p)] for _ in range(2)],
            }
        funcs.append({"name": name, "metrics": metrics})
    wall = sum(f(p) for f in FUNCS.values())
    return {
        "format": "roofcast-profile",
        "format_version": 1,
        "parameters": {"cores": p},
        "run": {"wall_seconds": round(wall, 4), "cores": p},
        "functions": funcs,
    }


for p in (8, 16, 32, 64, 128):
    with open(f"run-{p:03d}.json", "w") as fh:
        json.dump(profile(p, skip_io=(p == 32)), fh, indent=1)
        fh.write("\n")
with open("target-256.json", "w") as fh:
    json.dump(profile(256), fh, indent=1)
    fh.write("\n")

with open("two-param.csv", "w") as fh:
    fh.write("function,metric,cores,size,value\n")
    for p in (4, 8, 16, 32):
        for n in (1000, 2000, 4000, 8000):
            for _ in range(2):
                fh.write(f"stencil,time,{p},{n},{noisy(0.05 + 2e-5 * n / p + 1e-3 * math.log2(p)):.6g}\n")
                fh.write(f"exchange,time,{p},{n},{noisy(0.01 + 3e-6 * math.sqrt(n) * math.log2(p)):.6g}\n")
