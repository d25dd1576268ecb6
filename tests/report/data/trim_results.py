#!/usr/bin/env python3
"""Trims a results file of a real default run into the report fixture full-suite.json (tests/e2e/
report_full_size.sh renders it at full size in headless Chromium): every `samples` array is dropped (the
summaries beside them stay), floats keep seven significant digits and each prediction keeps its first two
notes. Everything the charts draw — every kernel, the machine's roofs, ceilings and sweep — stays.
Usage: python3 trim_results.py RESULTS.json > full-suite.json"""
import json
import sys


def trim(x):
    if isinstance(x, dict):
        return {k: trim(v) for k, v in x.items() if k != "samples"}
    if isinstance(x, list):
        return [trim(v) for v in x]
    if isinstance(x, float) and x == x and abs(x) < 1e300 and x != int(x):
        return float("%.7g" % x)
    return x


results = trim(json.load(open(sys.argv[1])))
for kernel in results["kernels"]:
    for prediction in kernel["predictions"]:
        prediction["notes"] = prediction["notes"][:2]
print(json.dumps(results, separators=(",", ":")))
