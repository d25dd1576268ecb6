#!/usr/bin/env python3
"""Hostile inputs per class, run by bench/reliability.sh (read that script's header first).

python3 bench/lib/reliability.py BINARY MUTATIONS WORKDIR SOURCE_DIR

Every run is `timeout -k 2 10 BINARY ...` with stdin closed and the working directory inside WORKDIR.
Each input ends in exactly one outcome:
  clean     non-zero exit and the error shape of docs/reliability.md: exit 1 with one last stderr line
            `roofcast: error: ...` (only `roofcast: warning:` lines before it), or a command-line usage
            error (exit 2: that line, then `Run with --help for usage.`); the line names the input where
            the input is a file, is at most 600 characters and holds no byte below 0x20
  accepted  exit 0
  messy     non-zero exit, not that shape (the reasons are listed)
  crash     killed by a signal (status >= 128 other than timeout's), or sanitizer/abort text in the output
  hang      still running after the time limit (timeout's status 124 or 137)
and may carry these flags, each a finding:
  late       it answered, but slower than its goal: 1 s per MB of input with a floor of 1 s (option
             checks: 5 s; unbounded reads: 1 s whatever the size)
  unexpected accepted where a refusal is required, refused where the run must work, or a raw control
             byte / over-long line where a terminal reads it (class "hostile names")
  destroyed  a FIFO, device, symlink, directory or input changed kind or content
RELIABILITY_KEEP=DIR copies the generated input(s) of every finding into DIR; RELIABILITY_VERBOSE=1 prints
every run as it ends.
"""
import bisect
import hashlib
import json
import os
import random
import re
import resource
import select
import shlex
import shutil
import socket
import stat
import subprocess
import sys
import threading
import time

BIN, N_MUT, WORK, SRC = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
LIMIT = 10  # seconds per run
MAX_LINE = 600  # characters of an error line
KEEP = os.environ.get("RELIABILITY_KEEP")
VERBOSE = os.environ.get("RELIABILITY_VERBOSE")
random.seed(19)

CLASSES = ["deep nesting", "unbounded counts", "special outputs", "unbounded reads", "schema mutations",
           "hostile names"]
CRASH_TEXT = [b"AddressSanitizer", b"UndefinedBehaviorSanitizer", b"LeakSanitizer", b"runtime error:",
              b"Segmentation", b"terminate called", b"Aborted", b"core dumped", b"stack smashing",
              b"double free", b"free(): ", b"malloc(): ", b"Floating point exception"]
runs = []  # one dict per input
disagree = []  # mutations that validate accepted and the consuming command refused, or the other way round


def p(*parts):
    return os.path.join(WORK, *parts)


def src(rel):
    return os.path.join(SRC, rel)


def write(path, data):
    with open(path, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())
    return path


def file_size(path):
    try:
        st = os.stat(path)
    except OSError:
        return 0
    return st.st_size if stat.S_ISREG(st.st_mode) else 0


# ---------------------------------------------------------------- what a target is, before and after a run
def snapshot(path):
    """Kind and content of a path, enough to tell whether a run destroyed it."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return ("absent",)
    if stat.S_ISLNK(st.st_mode):
        return ("symlink", os.readlink(path))
    if stat.S_ISFIFO(st.st_mode):
        return ("fifo",)
    if stat.S_ISCHR(st.st_mode):
        return ("char device", st.st_rdev)
    if stat.S_ISSOCK(st.st_mode):
        return ("socket",)
    if stat.S_ISDIR(st.st_mode):
        return ("directory", tuple(sorted((n, snapshot(os.path.join(path, n))) for n in os.listdir(path))))
    with open(path, "rb") as f:
        return ("file", hashlib.sha256(f.read()).hexdigest())


def kind_of(snap):
    return snap[0]


# ---------------------------------------------------------------- running one input
def run(cls, argv, label, *, name=None, expect="any", goal=None, size=None, protect=(), keep_kind=(),
        inputs=(), terminal=False, reader=None, files_out=(), record=True):
    """Runs roofcast with argv and records the outcome.

    name      the path the error line must name (or a list: one of them), None for no such check
    expect    'error' (must be refused), 'ok' (must work) or 'any'
    goal      seconds the run may take (default: 1 s per MB of input, at least 1 s)
    protect   paths whose kind and content must not change
    keep_kind paths whose kind (and link target) must not change; their content may
    inputs    generated files to copy for RELIABILITY_KEEP
    terminal  stdout and stderr must hold no raw control byte (ESC above all)
    reader    a FIFO path that gets a reader for the run's length
    record    False: run and return, count nothing (choosing a consumer)
    files_out written files that must hold no raw control byte (an SVG, an HTML page)
    """
    if size is None:
        size = sum(file_size(a) for a in argv if not a.startswith("-"))
    mb = size / 1e6
    if goal is None:
        goal = max(1.0, mb)
    before = {q: snapshot(q) for q in list(protect) + list(keep_kind)}
    drain = start_reader(reader) if reader else None
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(["timeout", "-k", "2", str(LIMIT), BIN] + argv, stdin=subprocess.DEVNULL,
                              capture_output=True, cwd=p("cwd"), timeout=LIMIT + 20)
        rc, out, err = proc.returncode, proc.stdout, proc.stderr
    except subprocess.TimeoutExpired as e:
        rc, out, err = 137, e.stdout or b"", e.stderr or b""
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    if drain:
        drain()
    rec = dict(cls=cls, argv=argv, label=label, rc=rc, wall=wall, cpu=cpu, err=err, out=out, size=size,
               spmb=wall / max(1.0, mb), goal=goal, inputs=list(inputs), reasons=[], flags={})
    classify(rec, name)
    if rec["outcome"] not in ("hang", "crash"):
        if wall > goal:
            rec["flags"]["late"] = f"{wall:.2f} s wall ({cpu:.2f} s CPU) over the goal of {goal:.0f} s"
        if expect == "error" and rc == 0:
            rec["flags"]["unexpected"] = "accepted where a refusal is required"
        if expect == "ok" and rc != 0:
            rec["flags"]["unexpected"] = "refused where the run must work"
    if terminal:  # stderr of an error is judged by classify
        for what, data in (("stdout", out),) + ((("stderr", err),) if rc == 0 else ()):
            bad = raw_control(data)
            if bad:
                rec["flags"]["unexpected"] = f"raw byte {bad} on {what}"
        for f in files_out:
            if os.path.isfile(f):
                with open(f, "rb") as fh:
                    bad = raw_control(fh.read(), allow=b"\n\t\r")
                if bad:
                    rec["flags"]["unexpected"] = f"raw byte {bad} in the written {os.path.basename(f)}"
    lost = []
    for q in protect:
        if snapshot(q) != before[q]:
            lost.append(f"{q} was {kind_of(before[q])}, now {kind_of(snapshot(q))}"
                        + (" (content changed)" if kind_of(snapshot(q)) == kind_of(before[q]) else ""))
    for q in keep_kind:
        now = snapshot(q)
        if kind_of(now) != kind_of(before[q]) or (kind_of(now) == "symlink" and now != before[q]):
            lost.append(f"{q} was {kind_of(before[q])}, now {kind_of(now)}")
    if lost:
        rec["flags"]["destroyed"] = "; ".join(lost)
    if record:
        runs.append(rec)
        keep(rec)
        if VERBOSE:
            print(f"{rec['outcome']:8} {' '.join(rec['flags'])} rc={rc} {wall:.2f}s {command_text(argv)} "
                  f"| {printable(err, 160)}", flush=True)
    return rec


def raw_control(data, allow=b"\n"):
    for b in data:
        if b < 0x20 and b not in allow or b == 0x7F:
            return f"0x{b:02x}"
    return None


def classify(rec, name):
    rc, err = rec["rc"], rec["err"]
    if rc in (124, 137):
        rec["outcome"] = "hang"
        rec["reasons"] = [f"still running after {LIMIT} s"]
        return
    crash = [t.decode() for t in CRASH_TEXT if t in err or t in rec["out"]]
    if rc >= 128 or rc < 0 or crash:
        rec["outcome"] = "crash"
        rec["reasons"] = [f"exit status {rc}"] + crash
        return
    lines = err.decode("utf-8", "replace").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    warnings = [x for x in lines if x.startswith("roofcast: warning:")]
    rec["warned"] = bool(warnings)
    if rc == 0:
        rec["outcome"] = "accepted"
        long = [x for x in lines if len(x) > MAX_LINE]
        bad = raw_control(err)
        if long or bad:
            rec["flags"]["unexpected"] = (f"a stderr line of {len(long[0])} characters" if long
                                          else f"raw byte {bad} on stderr")
        return
    reasons = []
    body = lines
    if rc == 2 and lines and lines[-1] == "Run with --help for usage.":
        body = lines[:-1]  # a command-line usage error (CLI11): the hint line is part of the shape
    elif rc != 1:
        reasons.append(f"exit status {rc}")
    errors = [x for x in body if x.startswith("roofcast: error:")]
    others = [x for x in body if not x.startswith(("roofcast: error:", "roofcast: warning:"))]
    if len(errors) != 1:
        reasons.append(f"{len(errors)} error lines")
    if others:
        reasons.append(f"{len(others)} other stderr line(s): {others[0][:80]!r}")
    if errors and body and body[-1] != errors[-1]:
        reasons.append("lines after the error line")
    line = errors[0] if errors else ""
    names = [] if name is None else [name] if isinstance(name, str) else list(name)
    if names and errors and not any(n in line or os.path.basename(n) in line for n in names):
        reasons.append("the error does not name the file")
    if any(len(x) > MAX_LINE for x in lines):
        reasons.append(f"a line of {max(len(x) for x in lines)} characters")
    bad = raw_control(err)
    if bad:
        reasons.append(f"raw byte {bad} on stderr")
    rec["outcome"] = "messy" if reasons else "clean"
    rec["reasons"] = reasons


def keep(rec):
    if not KEEP or not (rec["outcome"] in ("messy", "crash", "hang") or rec["flags"]):
        return
    os.makedirs(KEEP, exist_ok=True)
    for f in rec["inputs"]:
        if os.path.isfile(f) and not os.path.islink(f):
            safe = re.sub(r"[^\w.-]", "_", os.path.basename(f))
            shutil.copy(f, os.path.join(KEEP, f"{len(runs):05d}-{safe}"))


def start_reader(fifo):
    """Opens a reader on FIFO now and drains it in a thread; the returned function waits for the end."""
    fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    stop = threading.Event()

    def loop():
        seen_writer = False
        while not stop.is_set():
            ready, _, _ = select.select([fd], [], [], 0.05)
            if ready:
                data = os.read(fd, 65536)
                if data:
                    seen_writer = True
                elif seen_writer:
                    return
                else:  # no writer yet: a FIFO without one reads as end of file
                    time.sleep(0.01)

    t = threading.Thread(target=loop, daemon=True)
    t.start()

    def finish():
        stop.set()
        t.join()
        os.close(fd)

    return finish


# ---------------------------------------------------------------- 1. deep nesting
def nest_json(depth, style):
    if style == "arrays":
        return "[" * depth + "1" + "]" * depth
    return '{"a":' * depth + "1" + "}" * depth


def nest_yaml_flow(depth, style):
    if style == "arrays":
        return "[" * depth + "1" + "]" * depth
    return "{a: " * depth + "1" + "}" * depth


def json_with(path, key, nest):
    """The JSON file at path with the value of key replaced by the text nest."""
    d = json.load(open(path))
    d[key] = "@@NEST@@"
    return json.dumps(d, indent=1).replace('"@@NEST@@"', nest)


def yaml_with(path, key, nest_lines):
    """The YAML file at path with the block under the top-level key replaced by nest_lines."""
    out, skip = [], False
    for line in open(path).read().split("\n"):
        if skip and (line.startswith((" ", "\t", "-")) or not line.strip()):
            continue
        skip = False
        if line.startswith(key + ":"):
            out.append(key + ":" + nest_lines)
            skip = True
            continue
        out.append(line)
    return "\n".join(out)


def deep_nesting():
    results = src("tests/report/data/results.json")
    profile = src("data/profiles/run-016.json")
    machine = src("data/machines/example-caches.yaml")
    kernel = src("data/kernels/triad.yaml")
    threads = src("fuzz/seeds/threads/command.json")
    extrap = src("fuzz/seeds/extrap_json/new.json")
    pub = src("data/machines/example-published.yaml")
    others = [src(f"data/profiles/run-{r}.json") for r in ("008", "032", "064")]
    os.makedirs(p("deep"), exist_ok=True)
    for depth in (100, 1000, 30000, 100000):
        cases = []  # (file name, text, [argv builders])
        res_cmds = [lambda f: ["validate", f], lambda f: ["plot", f, "-o", p("out", "c.svg")],
                    lambda f: ["report", f, "-o", p("out", "rep")]]
        cases.append(("results-top.json", nest_json(depth, "arrays"), res_cmds))
        cases.append(("results-machine.json", json_with(results, "machine", nest_json(depth, "objects")),
                      res_cmds))
        cases.append(("results-kernels.json", json_with(results, "kernels", nest_json(depth, "arrays")),
                      res_cmds))
        prof_cmds = [lambda f: ["validate", f], lambda f: ["scale", f] + others,
                     lambda f: ["plot", f, "--machine", machine, "-o", p("out", "c.svg")],
                     lambda f: ["report", f, "--machine", machine, "-o", p("out", "rep")]]
        cases.append(("profile-top.json", nest_json(depth, "arrays"), prof_cmds))
        cases.append(("profile-functions.json", json_with(profile, "functions", nest_json(depth, "objects")),
                      prof_cmds))
        mach_cmds = [lambda f: ["validate", f], lambda f: ["plot", f, "-o", p("out", "c.svg")],
                     lambda f: ["predict", kernel, "--machine", f]]
        cases.append(("machine-top.yaml", nest_yaml_flow(depth, "arrays"), mach_cmds))
        cases.append(("machine-compute.yaml", yaml_with(machine, "compute", " " + nest_yaml_flow(depth, "objects")),
                      mach_cmds))
        # Block sequences on one line ("- - - 1"): each "- " is one level and two more columns of indentation.
        cases.append(("machine-levels-block.yaml", yaml_with(machine, "levels", "\n  " + "- " * depth + "1"),
                      mach_cmds))
        kern_cmds = [lambda f: ["validate", f], lambda f: ["predict", f, "--machine", pub]]
        cases.append(("kernel-top.yaml", nest_yaml_flow(depth, "objects"), kern_cmds))
        cases.append(("kernel-bytes.yaml",
                      yaml_with(kernel, "bytes_per_iteration", " " + nest_yaml_flow(depth, "arrays")), kern_cmds))
        cases.append(("kernel-block.yaml", yaml_with(kernel, "bytes_per_iteration", "\n  " + "- " * depth + "1"),
                      kern_cmds))
        thr_cmds = [lambda f: ["validate", f], lambda f: ["threads", "--from", f]]
        cases.append(("threads-series.json", json_with(threads, "series", nest_json(depth, "arrays")), thr_cmds))
        ex_cmds = [lambda f: ["validate", f], lambda f: ["scale", f]]
        cases.append(("extrap-measurements.json",
                      json_with(extrap, "measurements", nest_json(depth, "objects")), ex_cmds))
        for fname, text, cmds in cases:
            f = write(p("deep", f"d{depth}-{fname}"), text)
            for cmd in cmds:
                argv = cmd(f)
                run("deep nesting", argv, f"{fname} nested {depth} deep", name=f, expect="error", inputs=[f])
                shutil.rmtree(p("out", "rep"), ignore_errors=True)


# ---------------------------------------------------------------- 2. unbounded counts (option checks)
def unbounded_counts():
    m = src("data/machines/example-caches.yaml")
    pub = src("data/machines/example-published.yaml")
    k = src("data/kernels/triad.yaml")
    thr = src("fuzz/seeds/threads/command.json")
    sim = ["stencil", "--kernel", "jacobi7", "--simulate", "--machine", m, "--alpha", "1e-6", "--beta", "10"]
    # Every one of these must be refused before anything is measured (options are checked first).
    refused = [
        ["ceiling", "--threads", "100000"], ["ceiling", "--threads", "100000", "--oversubscribe"],
        ["ceiling", "--threads", "-1"], ["ceiling", "--threads", "99999999999999999999"],
        ["ceiling", "--threads", "1e9"],
        ["bandwidth", "load", "1MiB", "--threads", "100000"],
        ["bandwidth", "load", "1MiB", "--threads", "5000", "--oversubscribe"],
        ["bandwidth", "load", "1e300"], ["bandwidth", "load", "1000000TiB"], ["bandwidth", "load", "0"],
        ["bandwidth", "load", "-1MiB"], ["bandwidth", "load", "nanMiB"], ["bandwidth", "load", "infGiB"],
        ["threads", "--threads", "100000"], ["threads", "--threads", "100000", "--oversubscribe"],
        ["threads", "--threads", "-1"], ["threads", "--threads", "1,2,999999"],
        ["threads", "--sizes", "1e30"], ["threads", "--sizes", "-5"],
        ["threads", "--holdout", "1000000"], ["threads", "--timeout", "-1"], ["threads", "--timeout", "nan"],
        # A program run 10^9 times per point; --repetitions has no upper bound documented.
        ["threads", "--command", "true {n}", "--repetitions", "1000000000", "--sizes", "1000",
         "--threads", "1,2,3"],
        ["run", "--threads", "100000", "-o", p("out", "r")], ["run", "--threads", "-1", "-o", p("out", "r")],
        ["run", "--threads", "2000", "--oversubscribe", "-o", p("out", "r")],
        ["machine", "--threads", "999999", "-o", p("out", "m.yaml")],
        ["machine", "--threads", "1,999999", "-o", p("out", "m.yaml")],
        ["machine", "--threads", "-1", "-o", p("out", "m.yaml")],
        ["machine", "--max-size", "1000000TiB", "-o", p("out", "m.yaml")],
        ["machine", "--max-size", "1", "-o", p("out", "m.yaml")],
        ["bench", "--threads", "100000", "--machine", m], ["bench", "--rounds", "-1", "--machine", m],
        ["bench", "--rounds", "99999999999", "--machine", m],
        ["stencil", "--kernel", "jacobi7", "--grid", "10x10x10", "--ranks", "100000000"],
        ["stencil", "--kernel", "jacobi7", "--grid", "10x10x10", "--ranks", "0"],
        ["stencil", "--kernel", "jacobi7", "--grid", "10x10x10", "--steps", "0"],
        ["stencil", "--kernel", "jacobi7", "--grid", "10x10x10", "--threads", "100000"],
        ["stencil", "--kernel", "jacobi7", "--grid", "100x100x100", "--sweep-k", "2000000000"],
        sim + ["--grid", "99999999999x99999999999x99999999999"],
        sim + ["--grid", "100x100x100", "--ranks", "2000000000"],
        # The model alone, but its k loop runs to --sweep-k: a count bound by nothing but the grid.
        sim + ["--grid", "100x100x100", "--sweep-k", "2000000000"],
        ["profile", "--repeat", "1000000000", "-o", p("out", "p.json"), "--", "/bin/true"],
        ["profile", "--ranks", "100000", "-o", p("out", "p.json"), "--", "/bin/true"],
        ["predict", k, "--machine", pub, "--threads", "-1"],
        ["threads", "--from", thr, "--holdout", "101"],
    ]
    for argv in refused:
        run("unbounded counts", argv, "option check", expect="error", goal=5.0, size=0)
    # Model-only runs with huge counts: they may answer, but within the goal.
    for argv in (["predict", k, "--machine", pub, "--threads", "100000"],
                 sim + ["--grid", "100x100x100", "--max-ranks", "2000000000"],
                 sim + ["--grid", "100x100x100", "--steps", "2000000000"],
                 ["threads", "--from", thr, "--predict", "n=1e300,s=100000"],
                 ["scale"] + [src(f"data/profiles/run-{r}.json") for r in ("008", "016", "032", "064")]
                 + ["--predict", "cores=100000000000000000000"]):
        run("unbounded counts", argv, "model only", goal=5.0, size=0)


# ---------------------------------------------------------------- 3. outputs onto special targets
def special_outputs():
    d = p("targets")
    os.makedirs(d)
    res = shutil.copy(src("tests/report/data/results.json"), p("targets", "results.json"))
    mach = shutil.copy(src("data/machines/example-caches.yaml"), p("targets", "machine.yaml"))
    prof = shutil.copy(src("data/profiles/run-016.json"), p("targets", "run-016.json"))
    thr = shutil.copy(src("fuzz/seeds/threads/command.json"), p("targets", "threads.json"))
    fifo = p("targets", "fifo.svg")
    os.mkfifo(fifo)
    # Device nodes of our own when root (a writer that replaced /dev/null would break the host).
    null, full = "/dev/null", "/dev/full"
    if os.geteuid() == 0:
        try:
            os.mknod(p("targets", "null"), 0o666 | stat.S_IFCHR, os.makedev(1, 3))
            os.mknod(p("targets", "full"), 0o666 | stat.S_IFCHR, os.makedev(1, 7))
            null, full = p("targets", "null"), p("targets", "full")
        except OSError:
            pass
    adir = p("targets", "adir")
    os.makedirs(adir)
    write(os.path.join(adir, "keep.txt"), "keep\n")
    home = p("targets", "home")
    os.makedirs(home)
    write(os.path.join(home, "thesis.tex"), "precious\n")
    real = p("targets", "real")
    os.makedirs(real)
    write(os.path.join(real, "chart.svg"), "old\n")
    link = p("targets", "link.svg")
    os.symlink(os.path.join(real, "chart.svg"), link)
    dangling = p("targets", "dangling.svg")
    os.symlink(os.path.join(real, "new.svg"), dangling)
    link_fifo = p("targets", "link-fifo.svg")
    os.symlink(fifo, link_fifo)
    link_dir = p("targets", "link-dir.svg")
    os.symlink(adir, link_dir)
    link_in = p("targets", "link-results.json")
    os.symlink(res, link_in)
    hard_in = p("targets", "hard-results.json")
    os.link(res, hard_in)
    plotdir_file = write(p("targets", "plots.txt"), "not a directory\n")
    # label, argv, expect, protect (kind and content), keep_kind (kind only), name in the error
    cases = [
        ("plot -o FIFO without a reader", ["plot", res, "-o", fifo], "error", [fifo, res], [], fifo),
        ("plot -o FIFO with a reader", ["plot", res, "-o", fifo], "ok", [fifo, res], [], fifo),
        (f"plot -o {null}", ["plot", res, "-o", null], "ok", [res], [null], null),
        (f"plot -o {full}", ["plot", res, "-o", full], "error", [res], [full], full),
        ("plot -o a directory", ["plot", res, "-o", adir], "error", [adir, res], [], adir),
        ("plot -o a symlink to a file", ["plot", res, "-o", link], "ok", [res], [link], link),
        ("plot -o a dangling symlink", ["plot", res, "-o", dangling], "any", [res], [dangling], dangling),
        ("plot -o a symlink to a FIFO", ["plot", res, "-o", link_fifo], "error", [res, fifo], [link_fifo],
         [link_fifo, fifo]),
        ("plot -o a symlink to a directory", ["plot", res, "-o", link_dir], "error", [res, adir], [link_dir],
         [link_dir, adir]),
        ("plot X.json -o X.json", ["plot", res, "-o", res], "error", [res], [], res),
        ("plot X.json -o a symlink to X.json", ["plot", res, "-o", link_in], "error", [res, link_in], [],
         link_in),
        ("plot X.json -o a hard link of X.json", ["plot", res, "-o", hard_in], "error", [res, hard_in], [],
         hard_in),
        ("plot M.yaml -o M.yaml", ["plot", mach, "-o", mach], "error", [mach], [], mach),
        ("plot P --machine M -o M", ["plot", prof, "--machine", mach, "-o", mach], "error", [mach, prof], [],
         mach),
        ("plot -o ''", ["plot", res, "-o", ""], "error", [res], [], None),
        ("plot -o into a missing directory", ["plot", res, "-o", p("targets", "missing", "c.svg")], "error",
         [res], [], "missing"),
        ("report X.json -o X.json", ["report", res, "-o", res], "error", [res], [], res),
        ("report -o a directory with a user's file", ["report", res, "-o", home], "error", [home, res], [],
         home),
        ("report -o FIFO", ["report", res, "-o", fifo], "error", [fifo, res], [], fifo),
        (f"report -o {null}", ["report", res, "-o", null], "error", [res], [null], null),
        ("report -o a symlink to a directory", ["report", res, "-o", link_dir], "error", [res, adir],
         [link_dir], [link_dir, adir]),
        ("threads --from T -o T", ["threads", "--from", thr, "-o", thr], "error", [thr], [], thr),
        ("threads --from T -o FIFO without a reader", ["threads", "--from", thr, "-o", fifo], "error",
         [thr, fifo], [], fifo),
        ("scale --plot-dir onto a file", ["scale", prof] + [src(f"data/profiles/run-{r}.json") for r in
                                                           ("008", "032", "064")] + ["--plot-dir", plotdir_file],
         "error", [plotdir_file, prof], [], plotdir_file),
        ("scale --plot-dir onto a FIFO", ["scale", prof] + [src(f"data/profiles/run-{r}.json") for r in
                                                           ("008", "032", "064")] + ["--plot-dir", fifo],
         "error", [fifo, prof], [], fifo),
        ("bench --json M --machine M", ["bench", "--machine", mach, "--json", mach], "error", [mach], [], mach),
        ("machine -o a directory", ["machine", "--quick", "-o", adir], "error", [adir], [], adir),
    ]
    for label, argv, expect, protect, kind, name in cases:
        reader = fifo if "with a reader" in label else None
        run("special outputs", argv, label, name=name, expect=expect, protect=protect, keep_kind=kind,
            reader=reader)


# ---------------------------------------------------------------- 4. unbounded reads
def unbounded_reads():
    d = p("reads")
    os.makedirs(d)
    fifo = p("reads", "fifo.json")
    os.mkfifo(fifo)
    held = p("reads", "held.yaml")
    os.mkfifo(held)
    held_fd = os.open(held, os.O_RDWR)  # a FIFO with a writer that never closes it
    sparse = p("reads", "sparse-1g.json")
    with open(sparse, "wb") as f:
        f.truncate(1 << 30)
    over = p("reads", "sparse-300m.yaml")
    with open(over, "wb") as f:
        f.truncate(300 << 20)
    zeros = p("reads", "zeros-100m.json")  # under the 256 MiB read limit: read and refused
    with open(zeros, "wb") as f:
        f.truncate(100 << 20)
    binary = shutil.copy(BIN, p("reads", "binary.yaml"))
    sock = p("reads", "socket.json")
    s = socket.socket(socket.AF_UNIX)
    s.bind(sock)
    k = src("data/kernels/triad.yaml")
    pub = src("data/machines/example-published.yaml")
    runs_ = [src(f"data/profiles/run-{r}.json") for r in ("008", "016", "032", "064")]
    cases = []
    for f in ("/dev/zero", "/dev/urandom", fifo, held, d, sparse, over, zeros, binary, sock,
              "/proc/self/maps"):
        cases.append((["validate", f], f))
    for f in ("/dev/zero", fifo, held, sparse):
        cases += [(["plot", f, "-o", p("out", "c.svg")], f), (["predict", f, "--machine", pub], f),
                  (["predict", k, "--machine", f], f), (["scale", f], f), (["threads", "--from", f], f),
                  (["report", f, "-o", p("out", "rep")], f), (["scale"] + runs_ + ["--evaluate", f], f),
                  (["plot", runs_[0], "--machine", f, "-o", p("out", "c.svg")], f)]
    cases.append((["validate", "/dev/zero", "/dev/zero", fifo, d], "/dev/zero"))
    for argv, f in cases:
        goal = 1.0 if f != zeros else max(1.0, (100 << 20) / 1e6)
        run("unbounded reads", argv, "read of " + os.path.basename(f), name=f, expect="error", goal=goal,
            size=0)
        shutil.rmtree(p("out", "rep"), ignore_errors=True)
    os.close(held_fd)
    s.close()


# ---------------------------------------------------------------- 5. schema mutations
STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')
YAML_SKIP = re.compile(r'"(?:[^"\\\n]|\\.)*"|(?:(?<=\s)|^)#[^\n]*', re.M)
NUMBER = re.compile(r"(?:(?<=^)|(?<=[\s:\[,{(]))-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?(?=$|[\s,\]})])", re.M)
JSON_KEY = re.compile(r'"([A-Za-z_][\w.]*)"\s*:')
YAML_BLOCK_KEY = re.compile(r"^([ ]*)(- )?([A-Za-z_][\w.]*):", re.M)
YAML_FLOW_KEY = re.compile(r"(?<=[{,] )([A-Za-z_][\w.]*):|(?<=[{,])([A-Za-z_][\w.]*):")
VALUES = {
    "json": ["1e308", "-1e308", "-1", "0", "1e-320", '"nan"', "NaN", '"inf"', "Infinity", "9.2e18", "-9.2e18",
             "[[1]]", '"x"', "null", "true"],
    "yaml": ["1e308", "-1e308", "-1", "0", "1e-320", ".nan", "nan", ".inf", "-.inf", "9.2e18", "-9.2e18",
             "[[1]]", "x", "null", "true"],
    "text": ["1e308", "-1e308", "-1", "0", "1e-320", "nan", "inf", "-inf", "9.2e18", "-9.2e18", "[[1]]",
             "x", "null", "true"],
}
OPERATORS = ["number"] * 4 + ["delete key", "rename key", "duplicate key", "truncate", "control char",
                              "200 KB token"]
CONTROLS = ["\x00", "\x01", "\x07", "\x08", "\x0b", "\x0c", "\x1b", "\x1b[2J", "\x7f", "\r"]


def outside_strings(text, matches, fmt="json"):
    """The matches that lie outside quoted strings (and, in YAML, outside comments)."""
    spans = [(m.start(), m.end()) for m in (STRING if fmt != "yaml" else YAML_SKIP).finditer(text)]
    starts = [a for a, _ in spans]
    keep_ = []
    for m in matches:
        i = bisect.bisect_right(starts, m.start()) - 1
        if i < 0 or m.start() >= spans[i][1]:
            keep_.append(m)
    return keep_


def cut_member(text, a, b, blanks):
    """text without the member text[a:b] and one comma: the one after it, or (the last member) the one before."""
    if b < len(text) and text[b] == ",":
        b += 1
    else:
        j = a - 1
        while j >= 0 and text[j] in blanks:
            j -= 1
        if j >= 0 and text[j] == ",":
            a = j
    return text[:a] + text[b:]


def value_end(text, i):
    """End of a JSON/flow-YAML value starting at i: the next ',' or closing bracket at depth 0."""
    depth = 0
    while i < len(text):
        c = text[i]
        if c == '"':
            m = STRING.match(text, i)
            i = m.end() if m else i + 1
            continue
        if c in "[{":
            depth += 1
        elif c in "]}":
            if depth == 0:
                return i
            depth -= 1
        elif c == "," and depth == 0:
            return i
        elif c == "\n" and depth == 0 and text[i + 1:i + 2] not in (" ", "\t", "]", "}", ","):
            return i
        i += 1
    return i


def misspell(key):
    if len(key) < 2:
        return key + "x"
    i = random.randrange(len(key))
    return key[:i] + key[i + 1:]


def mutate(text, fmt, op):
    """One mutation of text (format json, yaml, csv or text); returns (new text, description)."""
    if op == "number":
        nums = outside_strings(text, list(NUMBER.finditer(text)), fmt)
        if not nums:
            op = "truncate"
        else:
            m = random.choice(nums)
            v = random.choice(VALUES["json" if fmt == "json" else "yaml" if fmt == "yaml" else "text"])
            return text[:m.start()] + v + text[m.end():], f"number {m.group()!s:.20} -> {v} at byte {m.start()}"
    if op in ("delete key", "rename key", "duplicate key"):
        if fmt == "json":
            keys = outside_strings(text, list(JSON_KEY.finditer(text)))
            if keys:
                m = random.choice(keys)
                key = m.group(1)
                if op == "rename key":
                    new = misspell(key)
                    return text[:m.start(1)] + new + text[m.end(1):], f"key '{key}' -> '{new}'"
                if op == "duplicate key":
                    return text[:m.start()] + f'"{key}": 0, ' + text[m.start():], f"key '{key}' twice"
                return cut_member(text, m.start(), value_end(text, m.end()), " \t\n"), f"key '{key}' deleted"
        elif fmt == "yaml":
            keys = [("block", m) for m in YAML_BLOCK_KEY.finditer(text)]
            keys += [("flow", m) for m in YAML_FLOW_KEY.finditer(text)]
            keys = [(k, m) for k, m in keys if "#" not in text[text.rfind("\n", 0, m.start()) + 1:m.start()]]
            if keys:
                kind, m = random.choice(keys)
                g = 3 if kind == "block" else (1 if m.group(1) else 2)
                key = m.group(g)
                if op == "rename key":
                    new = misspell(key)
                    return text[:m.start(g)] + new + text[m.end(g):], f"key '{key}' -> '{new}'"
                if op == "duplicate key":
                    if kind == "flow":
                        return text[:m.start(g)] + f"{key}: 0, " + text[m.start(g):], f"key '{key}' twice"
                    indent = len(m.group(1)) + (2 if m.group(2) else 0)
                    line_start = text.rfind("\n", 0, m.start(g)) + 1
                    if m.group(2):  # "- key: v" -> "- key: 0\n  key: v"
                        return (text[:m.start(g)] + f"{key}: 0\n" + " " * indent + text[m.start(g):],
                                f"key '{key}' twice")
                    return (text[:line_start] + " " * indent + f"{key}: 0\n" + text[line_start:],
                            f"key '{key}' twice")
                if kind == "flow":
                    return cut_member(text, m.start(g), value_end(text, m.end(g) + 1), " \t"), f"key '{key}' deleted"
                # A block key: its line and the lines indented below it (a list item's first key: the key
                # alone, so the item stays).
                line_start = text.rfind("\n", 0, m.start(g)) + 1
                line_end = text.find("\n", m.end())
                line_end = len(text) if line_end < 0 else line_end
                if m.group(2):
                    return text[:m.start(g)] + "{}" + text[line_end:], f"key '{key}' deleted"
                indent = len(m.group(1))
                end = line_end
                while end < len(text):
                    nxt = text.find("\n", end + 1)
                    nxt = len(text) if nxt < 0 else nxt
                    line = text[end + 1:nxt]
                    if line.strip() and (len(line) - len(line.lstrip(" ")) <= indent):
                        break
                    end = nxt
                return text[:line_start] + text[end + 1:], f"key '{key}' deleted"
        else:  # csv and Extra-P text: lines and their first words stand for keys
            lines = text.split("\n")
            idx = [i for i, x in enumerate(lines) if x.strip()]
            if idx:
                i = random.choice(idx)
                if op == "delete key":
                    if fmt == "csv" and random.random() < 0.5:
                        cells = lines[i].split(",")
                        j = random.randrange(len(cells))
                        lines[i] = ",".join(cells[:j] + cells[j + 1:])
                        return "\n".join(lines), f"line {i + 1}: field {j + 1} deleted"
                    del lines[i]
                    return "\n".join(lines), f"line {i + 1} deleted"
                if op == "rename key":
                    i = 0 if fmt == "csv" else i
                    sep = "," if fmt == "csv" else " "
                    cells = lines[i].split(sep)
                    j = random.randrange(len(cells)) if fmt == "csv" else 0
                    old = cells[j]
                    cells[j] = misspell(cells[j])
                    lines[i] = sep.join(cells)
                    return "\n".join(lines), f"line {i + 1}: '{old}' -> '{cells[j]}'"
                if fmt == "csv" and random.random() < 0.5:
                    cells = lines[0].split(",")
                    a, b = random.sample(range(len(cells)), 2)
                    old = cells[a]
                    cells[a] = cells[b]
                    lines[0] = ",".join(cells)
                    return "\n".join(lines), f"header '{old}' -> '{cells[b]}' (twice)"
                lines.insert(i, lines[i])
                return "\n".join(lines), f"line {i + 1} twice"
        op = "truncate"
    if op == "truncate":
        cut = random.randrange(len(text))
        return text[:cut], f"truncated at byte {cut} of {len(text)}"
    if op == "control char":
        c = random.choice(CONTROLS)
        at = random.randrange(len(text) + 1)
        return text[:at] + c + text[at:], f"{c!r} inserted at byte {at}"
    # 200 KB token: a 200,000-digit number in place of a number, or 200,000 letters anywhere
    nums = outside_strings(text, list(NUMBER.finditer(text)), fmt)
    if nums and random.random() < 0.5:
        m = random.choice(nums)
        return text[:m.start()] + "9" * 200000 + text[m.end():], f"number at byte {m.start()} -> 200,000 digits"
    at = random.randrange(len(text) + 1)
    return text[:at] + "A" * 200000 + text[at:], f"200,000 letters inserted at byte {at}"


def schema_mutations():
    pub = src("data/machines/example-published.yaml")
    caches = src("data/machines/example-caches.yaml")
    runs_ = sorted(src(f"data/profiles/{f}") for f in os.listdir(src("data/profiles"))
                   if f.startswith("run-") and f.endswith(".json"))
    out_svg = p("out", "c.svg")
    shipped = []  # (path, format, [consumer candidates: f -> argv])
    for f in sorted(os.listdir(src("data/machines"))):
        if f.endswith(".yaml"):
            shipped.append((src(f"data/machines/{f}"), "yaml", [lambda x: ["plot", x, "-o", out_svg]]))
    shipped.append((src("tests/report/data/machine.yaml"), "yaml", [lambda x: ["plot", x, "-o", out_svg]]))
    for f in sorted(os.listdir(src("data/kernels"))):
        if f.endswith(".yaml"):
            shipped.append((src(f"data/kernels/{f}"), "yaml",
                            [lambda x: ["predict", x, "--machine", pub],
                             lambda x: ["predict", x, "--machine", caches]]))
    for f in sorted(os.listdir(src("data/profiles"))):
        path = src(f"data/profiles/{f}")
        if f.startswith("run-") and f.endswith(".json"):
            shipped.append((path, "json", [lambda x, path=path: ["scale"] + [x if r == path else r for r in runs_]]))
        elif f.endswith(".json"):
            shipped.append((path, "json", [lambda x: ["scale"] + runs_ + ["--predict", "256", "--evaluate", x]]))
        elif f.endswith(".csv"):
            shipped.append((path, "csv", [lambda x: ["scale", x]]))
    shipped.append((src("tests/report/data/results.json"), "json", [lambda x: ["plot", x, "-o", out_svg]]))
    for f in sorted(os.listdir(src("fuzz/seeds/threads"))):
        if f.endswith(".json"):
            shipped.append((src(f"fuzz/seeds/threads/{f}"), "json", [lambda x: ["threads", "--from", x]]))
    for d in (os.path.join(SRC, "..", "shared"), os.path.join(SRC, "..", "shared", "data")):
        if os.path.isdir(d):
            for f in sorted(os.listdir(d)):
                if f.endswith(".txt") and open(os.path.join(d, f), errors="replace").read(200).lstrip().startswith(
                        "PARAMETER"):
                    shipped.append((os.path.join(d, f), "text", [lambda x: ["scale", x]]))
    mutation_ops = {}
    for path, fmt, consumers in shipped:
        rel = os.path.relpath(os.path.realpath(path), os.path.realpath(SRC))
        d = p("mut", re.sub(r"[^\w.-]", "_", os.path.dirname(rel)))
        os.makedirs(d, exist_ok=True)
        target = os.path.join(d, os.path.basename(path))
        text = open(path, encoding="utf-8", errors="surrogateescape").read()
        # The shipped file itself: validate must accept it; the first consumer that works on it is used.
        shutil.copy(path, target)
        run("schema mutations", ["validate", target], f"{rel} (unmutated)", name=target, expect="ok")
        consumer = next((c for c in consumers
                         if run("schema mutations", c(target), "", record=False)["rc"] == 0), None)
        label = f"{rel} (unmutated)" if consumer else \
            f"{rel} (unmutated; no consumer works on the shipped file: its mutations run validate only)"
        run("schema mutations", (consumer or consumers[0])(target), label, name=target, expect="ok")
        for i in range(N_MUT):
            op = random.choice(OPERATORS)
            new, what = mutate(text, fmt, op)
            write(target, new.encode("utf-8", "surrogateescape"))
            label = f"{rel}: {what}"
            pair = []
            for argv in [["validate", target]] + ([consumer(target)] if consumer else []):
                r = run("schema mutations", argv, label, name=target, inputs=[target])
                r["op"] = op
                mutation_ops.setdefault(op, []).append(r)
                pair.append(r)
                if os.path.exists(out_svg):
                    os.remove(out_svg)
            if len(pair) == 2 and (pair[0]["rc"] == 0) != (pair[1]["rc"] == 0):
                disagree.append(pair)
    return mutation_ops


# ---------------------------------------------------------------- 6. hostile names and messages
def hostile_names():
    d = p("names")
    os.makedirs(d)
    pub = src("data/machines/example-published.yaml")
    triad = open(src("data/kernels/triad.yaml")).read()
    evil = "k\x1b[31mRED\x1b[0m\nroofcast: error: INJECTED\x07"
    good = write(os.path.join(d, evil + ".yaml"), triad)
    bad = write(os.path.join(d, evil + "-bad.yaml"), triad.replace("flops_per_iteration: 2",
                                                                     "flops_per_iteration: -2"))
    badm = write(os.path.join(d, evil + "-machine.yaml"), "format_version: 1\nname: x\nlevels: 3\n")
    esc_name = write(os.path.join(d, "esc-name.yaml"),
                     triad.replace("name: stream-triad", 'name: "\\e[31mred\\e[0m\\nroofcast: error: fake\\a"'))
    long_name = write(os.path.join(d, "long-name.yaml"),
                      triad.replace("name: stream-triad", "name: " + "N" * 200000))
    results = json.load(open(src("tests/report/data/results.json")))
    results["kernels"][0]["name"] = "\x1b[31mred\x1b[0m\n<script>&\x07"
    res = write(os.path.join(d, "esc-results.json"), json.dumps(results))
    profs = []
    for r in ["016"] + ["008", "032", "064"]:
        x = json.load(open(src(f"data/profiles/run-{r}.json")))
        x["functions"][0]["name"] = "main->\x1b[2Jclear\x1b]0;title\x07\n"
        profs.append(write(os.path.join(d, f"esc-run-{r}.json"), json.dumps(x)))
    thr = json.load(open(src("fuzz/seeds/threads/command.json")))
    thr["command"] = "sh -c '\x1b[31m{n}\x1b[0m'\nroofcast: error: fake"
    thr_f = write(os.path.join(d, "esc-threads.json"), json.dumps(thr))
    extrap = open(os.path.join(SRC, "..", "shared", "data", "extrap-one_parameter_1.txt")).read() \
        if os.path.exists(os.path.join(SRC, "..", "shared", "data", "extrap-one_parameter_1.txt")) else \
        "PARAMETER x\n\nPOINTS ( 20 )\nPOINTS ( 30 )\nPOINTS ( 40 )\n\nREGION r\nMETRIC time\nDATA 1 2\nDATA 2 3\nDATA 3 4\n"
    tok_text = write(os.path.join(d, "token-letters.txt"), extrap.replace("DATA ", "DATA " + "x" * 200000 + " ", 1))
    tok_num = write(os.path.join(d, "token-digits.txt"), extrap.replace("DATA ", "DATA " + "9" * 200000 + " ", 1))
    tok_region = write(os.path.join(d, "token-region.txt"), re.sub(r"REGION (\S+)", "REGION " + "R" * 200000,
                                                                   extrap, count=1))
    tok_param = write(os.path.join(d, "token-parameter.txt"), extrap.replace("PARAMETER x",
                                                                             "PARAMETER " + "P" * 200000, 1))
    long_path = os.path.join(d, *(["x" * 200] * 25), "missing.json")
    svg, html = p("out", "c.svg"), p("out", "rep")
    cases = [
        ("predict: kernel file named with ESC and newline", ["predict", good, "--machine", pub], "ok", None, []),
        ("predict: same name, bad field", ["predict", bad, "--machine", pub], "error", None, []),
        ("validate: same name, bad field", ["validate", bad], "error", None, []),
        ("predict: machine file named with ESC, bad", ["predict", good, "--machine", badm], "error", None, []),
        ("predict: kernel name with ESC and newline", ["predict", esc_name, "--machine", pub], "any", None, []),
        ("predict --json: kernel name with ESC", ["predict", esc_name, "--machine", pub, "--json"], "any", None,
         []),
        ("predict --explain: kernel name with ESC", ["predict", esc_name, "--machine", pub, "--explain"], "any",
         None, []),
        ("predict: 200 KB kernel name", ["predict", long_name, "--machine", pub], "any", None, []),
        ("validate: results kernel name with ESC", ["validate", res], "any", None, []),
        ("plot: results kernel name with ESC", ["plot", res, "-o", svg], "any", None, [svg]),
        ("report: results kernel name with ESC", ["report", res, "-o", html], "any", None,
         [os.path.join(html, "index.html")]),
        ("scale: function name with ESC", ["scale"] + profs, "any", None, []),
        ("scale --csv: function name with ESC", ["scale", "--csv"] + profs, "any", None, []),
        ("plot: profile function name with ESC", ["plot", profs[0], "--machine", pub, "-o", svg], "any", None,
         [svg]),
        ("threads --from: command with ESC", ["threads", "--from", thr_f], "any", None, []),
        ("validate: Extra-P 200 KB DATA token (letters)", ["validate", tok_text], "error", tok_text, []),
        ("scale: Extra-P 200 KB DATA token (letters)", ["scale", tok_text], "error", tok_text, []),
        ("scale: Extra-P 200 KB DATA token (digits)", ["scale", tok_num], "any", tok_num, []),
        ("scale: Extra-P 200 KB REGION name", ["scale", tok_region], "any", tok_region, []),
        ("scale: Extra-P 200 KB PARAMETER name", ["scale", tok_param], "any", tok_param, []),
        ("validate: a 5,000-character missing path", ["validate", long_path], "error", None, []),
        ("validate: a name with byte 0xff", ["validate", os.path.join(d, "bad\udcff.json")], "error", None, []),
    ]
    for label, argv, expect, name, files_out in cases:
        run("hostile names", argv, label, name=name, expect=expect, terminal=True, files_out=files_out,
            inputs=[a for a in argv if os.path.isfile(a)])
        for f in (svg,):
            if os.path.exists(f):
                os.remove(f)
        shutil.rmtree(html, ignore_errors=True)


# ---------------------------------------------------------------- the table and the findings
def printable(data, n=200):
    s = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    s = "".join(c if " " <= c < "\x7f" or "\xa0" <= c < "\udc80" or c > "\udcff"
                else "\\n" if c == "\n" else f"\\x{ord(c) & 0xff:02x}" for c in s)
    return s[:n] + (f"... ({len(s)} chars)" if len(s) > n else "")


def command_text(argv):
    parts = []
    for a in argv:
        a = a.replace(WORK, "$W").replace(os.path.realpath(SRC) + "/", "").replace(SRC + "/", "")
        parts.append(shlex.quote(printable(a, 80)))
    return "roofcast " + " ".join(parts)


def why(r, kind):
    """The reasons of a finding without the numbers and quotes that make each one different."""
    text = "; ".join(r["reasons"]) if kind in ("messy", "crash", "hang") else r["flags"].get(kind, "")
    if kind == "late":
        return "slower than the goal"
    if kind == "destroyed":
        return re.sub(r"\S*/", "", text)
    text = re.sub(r"raw byte 0x\w\w", "raw control byte", text)
    text = re.sub(r"a (stderr )?line of \d+ characters", f"a line over {MAX_LINE} characters", text)
    text = re.sub(r"(\d+) other stderr line\(s\): .*?(;|$)", r"other stderr lines\2", text)
    return re.sub(r"\b([2-9]|\d\d+) error lines", "several error lines", text)


ESCAPING = {f"a line over {MAX_LINE} characters", "raw control byte on stderr"}


def signature(r, kind):
    """Findings with one cause are one kind: the same reasons and, unless the reasons are those of an
    unescaped message (long lines, control bytes: one cause whatever the message), the same message
    with its file names, numbers and quoted values taken out."""
    reasons = why(r, kind)
    template = ""
    if not set(reasons.split("; ")) <= ESCAPING:
        first = printable(r["err"].split(b"\n")[0], 400) if r["err"] else ""
        first = re.sub(r"\S*/\S+", "FILE", first)
        first = re.sub(r"'[^']*('|$)", "Q", first)
        first = re.sub(r"field Q: ", "", first)
        template = re.sub(r"\d+(\.\d+)?(e[-+]?\d+)?", "N", first)[:70]
    return (r["cls"], kind, reasons, template)


def report(started, mutation_ops):
    row_fmt = "{:<18} {:>6} {:>9} {:>8} {:>5} {:>7} {:>5} {:>8} {:>9} {:>4} {:>5} {:>6}"
    print()
    print(row_fmt.format("class", "inputs", "clean-err", "accepted", "messy", "crashes", "hangs", "max s/MB",
                         "destroyed", "late", "unexp", "warned"))
    tot = dict(n=0, clean=0, accepted=0, messy=0, crash=0, hang=0, spmb=0.0, destroyed=0, late=0, unexp=0,
               warned=0)
    for cls in CLASSES:
        rs = [r for r in runs if r["cls"] == cls]
        if not rs:
            continue
        c = dict(n=len(rs), spmb=max([r["spmb"] for r in rs if r["outcome"] != "hang"] or [0]))
        for o in ("clean", "accepted", "messy", "crash", "hang"):
            c[o] = sum(r["outcome"] == o for r in rs)
        for f in ("destroyed", "late", "unexpected"):
            c[f[:5] if f == "unexpected" else f] = sum(f in r["flags"] for r in rs)
        c["warned"] = sum(bool(r.get("warned")) for r in rs)
        for k_ in tot:
            tot[k_] = max(tot[k_], c[k_]) if k_ == "spmb" else tot[k_] + c[k_]
        print(row_fmt.format(cls, c["n"], c["clean"], c["accepted"], c["messy"], c["crash"], c["hang"],
                             f"{c['spmb']:.2f}", c["destroyed"] if cls == "special outputs" else "-",
                             c["late"], c["unexp"], c["warned"]))
    print(row_fmt.format("total", tot["n"], tot["clean"], tot["accepted"], tot["messy"], tot["crash"],
                         tot["hang"], f"{tot['spmb']:.2f}", tot["destroyed"], tot["late"], tot["unexp"],
                         tot["warned"]))
    print("(max s/MB: wall seconds per MB of input, at least 1 MB counted, hangs left out; option checks and"
          " unbounded reads: seconds. Goal 1 s/MB; option checks 5 s)")
    print("slowest input per class (wall s, CPU s):")
    for cls in CLASSES:
        rs = [r for r in runs if r["cls"] == cls and r["outcome"] != "hang"]
        if rs:
            r = max(rs, key=lambda x: x["spmb"])
            print(f"  {cls:<18} {r['wall']:6.2f} {r['cpu']:6.2f}  {command_text(r['argv'])[:110]}")
    print()
    print(f"schema mutations by operator ({N_MUT} per shipped file; each run by validate and one consumer):")
    print("  {:<14} {:>6} {:>9} {:>8} {:>5} {:>7} {:>5}".format("operator", "runs", "clean-err", "accepted",
                                                                 "messy", "crashes", "hangs"))
    for op in dict.fromkeys(OPERATORS):
        rs = mutation_ops.get(op, [])
        print("  {:<14} {:>6} {:>9} {:>8} {:>5} {:>7} {:>5}".format(
            op, len(rs), *(sum(r["outcome"] == o for r in rs) for o in ("clean", "accepted", "messy", "crash",
                                                                         "hang"))))
    if disagree:
        v_ok = [q for q in disagree if q[0]["rc"] == 0]
        c_ok = [q for q in disagree if q[1]["rc"] == 0]
        print(f"validate and the consuming command disagree on {len(disagree)} mutations (not counted as"
              f" findings): validate accepted, the command refused: {len(v_ok)}; the other way round:"
              f" {len(c_ok)}")
        by_file = {}
        for q in disagree:
            by_file[q[0]["label"].split(":")[0]] = by_file.get(q[0]["label"].split(":")[0], 0) + 1
        print("  by file: " + ", ".join(f"{f} {n}" for f, n in sorted(by_file.items())))
        for q in (v_ok[:1] + c_ok[:1]):
            bad = q[1] if q[1]["rc"] else q[0]
            print(f"  e.g. {printable(bad['label'], 120)}: {command_text(bad['argv'])[:100]}")
            print(f"       {printable(bad['err'], 200)}")
    groups = {}
    for r in runs:
        kinds = [o for o in ("messy", "crash", "hang") if r["outcome"] == o] + list(r["flags"])
        for kind in kinds:
            groups.setdefault(signature(r, kind), []).append((kind, r))
    n_findings = sum(1 for r in runs if r["outcome"] in ("messy", "crash", "hang") or r["flags"])
    print()
    print(f"findings by cause ({len(groups)}; count, the commands and inputs involved, then one example):")
    for key, items in sorted(groups.items(), key=lambda kv: (CLASSES.index(kv[0][0]), -len(kv[1]))):
        kind, r = items[0]
        print(f"- [{r['cls']}] {kind} x{len(items)}: {key[2]}")
        if len(items) > 1:
            cmds = sorted({x["argv"][0] for _, x in items})
            files = sorted({os.path.basename(f) for _, x in items for f in x["inputs"]})
            print(f"    in:     {', '.join(cmds)}" + (f" on {printable(', '.join(files), 140)}" if files else ""))
        print(f"    e.g.:   {printable(r['label'], 160)}" + (f" ({r['flags'][kind]})" if kind in r["flags"]
                                                             and kind != "unexpected" else ""))
        print(f"    run:    {command_text(r['argv'])}  (exit {r['rc']}, {r['wall']:.2f} s)")
        if r["err"]:
            print(f"    stderr: {printable(r['err'])}")
    print()
    print(f"run time: {time.time() - started:.0f} s for {len(runs)} runs")
    print(f"findings: {n_findings}")


def main():
    sys.stdout.reconfigure(encoding="utf-8", errors="backslashreplace")
    started = time.time()
    for q in ("cwd", "out"):
        os.makedirs(p(q))
    steps = [("deep nesting", deep_nesting), ("unbounded counts", unbounded_counts),
             ("special outputs", special_outputs), ("unbounded reads", unbounded_reads),
             ("schema mutations", schema_mutations), ("hostile names", hostile_names)]
    mutation_ops = {}
    for label, step in steps:
        t0 = time.time()
        before = len(runs)
        got = step()
        if label == "schema mutations":
            mutation_ops = got
        print(f"{label}: {len(runs) - before} runs in {time.time() - t0:.0f} s", flush=True)
    report(started, mutation_ops)


if __name__ == "__main__":
    main()
