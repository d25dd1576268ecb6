"""Checks of one JSON document, for the end-to-end scripts' Python (which run with lib/ on PYTHONPATH):

    PYTHONPATH="$(dirname "$0")/lib" python3 - "$json" <<'PY' || fail=1
    from json_checks import check, done, doc as p
    check(p["kernel"] == "copy", "kernel")
    done()
    PY

doc is the document given as the first argument; check(cond, what) prints "failed: WHAT" and the document
when cond is false, and goes on; done() exits 1 when any check failed, else 0.
"""
import json
import sys

doc = json.loads(sys.argv[1])
_ok = True


def check(cond, what):
    global _ok
    if not cond:
        print("failed:", what, doc)
        _ok = False


def done():
    sys.exit(0 if _ok else 1)
