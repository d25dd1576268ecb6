"""What the bench scripts read from a `roofcast bench --json` results file, defined once for all of them."""


def prediction(k, model):
    """The kernel's prediction by `model`, or None."""
    return next((p for p in k["predictions"] if p["model"] == model), None)


def family_inside(r):
    """The mixed family's members inside the mixed model's validity with an error: the members the family's
    accuracy is scored on."""
    return [k for k in r["kernels"] if k["suite"] == "mixed"
            and (m := prediction(k, "mixed")) is not None and m["valid"] and m.get("error_pct") is not None]


def round_error_pct(k):
    """|1/f - 1| in % from the kernel's median per-round fraction f of its bound (the error experiment/bench.cpp's
    accuracy summary takes per round); None without rounds."""
    f = k.get("bound_fraction_median_round")
    return abs(1 / f - 1) * 100 if f else None
