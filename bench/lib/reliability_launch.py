#!/usr/bin/env python3
"""Bad inputs and faults over what roofcast launches, run by bench/reliability-launch.sh (read its header).

python3 bench/lib/reliability_launch.py BINARY WORKDIR SOURCE_DIR [quick|e2e]

quick leaves out the slowest cases (a million nested regions, 60,000-function files, a program deaf to
SIGTERM, a 4-rank stencil);
e2e, the subset tests/e2e/launch_reliability.sh runs, also takes one case in three of the larger classes.

Every case runs roofcast with stdin closed, TMPDIR and XDG_CACHE_HOME inside WORKDIR, under a wall-clock
limit, as a child of this process, which is a child subreaper (prctl PR_SET_CHILD_SUBREAPER): a process
that roofcast or its program leaves behind is re-parented here, so "left running" counts exactly what this
battery started, never a neighbour's processes. Each case ends in one outcome:
  clean     exit 1 or 2 with one `roofcast: error:` line (warnings before it), at most 600 characters
  accepted  exit 0 (a written profile must then pass `roofcast validate`)
  stopped   a case that sends a signal: exit 128 + that signal with roofcast's one `stopped by` line
  messy     a non-zero exit without that shape
  crash     a signal ended roofcast (or sanitizer, abort or segfault text)
  hang      roofcast still running at the limit (killed, with its descendants)
and may carry these findings: overwritten (an input changed), planted (a victim of the symlinks planted at
the temporary names roofcast used to predict, or at stale-looking names, changed), left (processes still
running 3 s after roofcast ended), temporaries (an entry left in TMPDIR), invalid (a profile written that
`validate` refuses), raw (a control byte or a line over 2,000 characters reached the terminal, more than
100 lines, or a library's exception text such as "filesystem error"), expectation (a case that must be
refused or must work did not).
"""
import ctypes
import hashlib
import json
import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import time

BIN, WORK, SRC = sys.argv[1], sys.argv[2], sys.argv[3]
MODE = sys.argv[4] if len(sys.argv) > 4 and sys.argv[4] else "full"
QUICK = MODE in ("quick", "e2e")
# The end-to-end test's subset (under a minute): every case of the classes below, one in three of the others.
E2E_EVERY = {"profile outputs", "profile time limits", "threads outputs", "threads time limits", "tau", "inspect"}
seen = {}
BUILD = os.path.dirname(os.path.abspath(BIN))
DRIVER = os.path.join(BUILD, "roofcast-marker-driver")
LIMIT = 30
MAX_LINE = 600
TMP = os.path.join(WORK, "tmp")
PROGS = os.path.join(WORK, "progs")
VICTIM = os.path.join(WORK, "victim")
for d in (TMP, PROGS, VICTIM, os.path.join(WORK, "cache"), os.path.join(WORK, "in")):
    os.makedirs(d, exist_ok=True)
CRASH_TEXT = [b"AddressSanitizer", b"runtime error:", b"Segmentation", b"terminate called", b"Aborted",
              b"core dumped", b"stack smashing", b"double free", b"free(): ", b"malloc(): "]
# A library's message passed through as it came: not the one line naming the path that roofcast writes.
RAW_TEXT = [b"filesystem error"]
FINDINGS = ["crash", "hang", "overwritten", "planted", "left", "temporaries", "invalid", "raw", "messy",
            "expectation"]
ENV = dict(os.environ, TMPDIR=TMP, XDG_CACHE_HOME=os.path.join(WORK, "cache"), LC_ALL="C")
for k in ("ROOFCAST_MARKER_OUTPUT", "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"):
    ENV.pop(k, None)

# A SIGHUP ignored here (the battery started under nohup) would stay ignored in roofcast, as it should:
# the SIGHUP cases need its default action.
signal.signal(signal.SIGHUP, signal.SIG_DFL)
libc = ctypes.CDLL(None, use_errno=True)
libc.prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER

results = []
counts = {k: 0 for k in FINDINGS}
outcomes = {}


def path(*p):
    return os.path.join(WORK, *p)


def write(p, data, mode=None):
    with open(p, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())
    if mode:
        os.chmod(p, mode)
    return p


def prog(name, body):
    """A shell program in PROGS (its path holds WORK, so what it leaves running is traceable)."""
    return write(os.path.join(PROGS, name), "#!/bin/sh\n" + body + "\n", 0o755)


def snapshot(p):
    try:
        st = os.lstat(p)
    except FileNotFoundError:
        return ("absent",)
    if stat.S_ISLNK(st.st_mode):
        return ("link", os.readlink(p))
    if stat.S_ISDIR(st.st_mode):
        return ("dir", tuple(sorted((n, snapshot(os.path.join(p, n))) for n in os.listdir(p))))
    if not stat.S_ISREG(st.st_mode):
        return ("special", stat.S_IFMT(st.st_mode))
    with open(p, "rb") as f:
        return ("file", hashlib.sha256(f.read()).hexdigest())


# ------------------------------------------------------------------ planted paths and victims
VICTIM_FILE = write(os.path.join(VICTIM, "file"), "victim\n")
VICTIM_DIR = os.path.join(VICTIM, "dir")
os.makedirs(VICTIM_DIR, exist_ok=True)
write(os.path.join(VICTIM_DIR, "keep"), "keep\n")


def plant():
    """Symlinks at the names roofcast's launchers used to predict ($TMPDIR/roofcast-stencil-<pid>,
    roofcast-threads-<pid>.log, roofcast-profile-<pid>) for the next pids, and at stale-looking names of
    the private directories of today (<prefix>.<host>.<dead pid>.XXXXXX), all pointing at the victims."""
    try:
        last = int(open("/proc/sys/kernel/ns_last_pid").read())
    except OSError:
        last = os.getpid()
    n = 3000 if QUICK else 20000
    for pid in range(last + 1, last + n):
        for name, target in ((f"roofcast-stencil-{pid}", VICTIM_DIR), (f"roofcast-threads-{pid}.log", VICTIM_FILE),
                             (f"roofcast-profile-{pid}", VICTIM_DIR), (f"roofcast-mpi-{pid}", VICTIM_DIR)):
            try:
                os.symlink(target, os.path.join(TMP, name))
            except FileExistsError:
                pass
    host = "".join(c if c.isalnum() else "-" for c in socket.gethostname())[:32] or "host"
    for prefix in ("roofcast-profile", "roofcast-threads", "roofcast-stencil", "roofcast-mpi"):
        os.symlink(VICTIM_DIR, os.path.join(TMP, f"{prefix}.{host}.999999999.AAAAAA"))


plant()
PLANTED = set(os.listdir(TMP))
VICTIMS = (snapshot(VICTIM_FILE), snapshot(VICTIM_DIR))


# ------------------------------------------------------------------ processes left behind
def my_orphans():
    """Processes re-parented to this subreaper (zombies reaped on the way)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if pid == 0:
            break
    me = os.getpid()
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == me and fields[0] != "Z":
            out.append(int(d))
    return out


def descendants(root):
    """Every process below `root` (from /proc's parent links)."""
    children = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    children.setdefault(int(f.read().rsplit(")", 1)[1].split()[1]), []).append(int(d))
            except OSError:
                pass
    out, todo = [], [root]
    while todo:
        for c in children.get(todo.pop(), []):
            out.append(c)
            todo.append(c)
    return out


def kill_left(pids):
    """Kills what a case left (and what those left below them), until nothing is re-parented here."""
    for _ in range(50):
        for pid in pids + [d for p in pids for d in descendants(p)]:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.1)
        pids = my_orphans()
        if not pids:
            return


# ------------------------------------------------------------------ one case
def case(cls, args, expect="any", inputs=(), output=None, sig=None, sig_after=1.0, limit=LIMIT, env=None,
         validate_output=True):
    """Runs `roofcast ARGS` and records its outcome and findings.

    expect  'error' (must be refused), 'ok' (must work), 'stop' (a signal case) or 'any'
    inputs  paths that must be unchanged afterwards
    output  the profile it may write (validated when it is written)
    sig     a signal sent sig_after seconds after the start
    """
    seen[cls] = seen.get(cls, 0) + 1
    if MODE == "e2e" and cls not in E2E_EVERY and seen[cls] % 3 != 1:
        return
    before = {p: snapshot(p) for p in inputs}
    saved = {p: open(p, "rb").read() for p in inputs if before[p][0] == "file"}
    out_before = snapshot(output) if output else None
    e = dict(ENV, **(env or {}))
    t0 = time.monotonic()
    proc = subprocess.Popen([BIN] + args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=e, cwd=WORK)
    hung = False
    if sig is not None:
        try:
            proc.wait(timeout=sig_after)
        except subprocess.TimeoutExpired:
            proc.send_signal(sig)
    try:
        so, se = proc.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        # Roofcast and everything below it, before reading the rest of its output: a program holding the
        # pipes would keep the read waiting.
        hung = True
        below = descendants(proc.pid)
        proc.kill()
        proc.wait()
        kill_left(below)
        so, se = proc.communicate()
    seconds = time.monotonic() - t0
    rc = proc.returncode
    # What roofcast leaves: processes (given 3 s to go), temporaries, changed inputs and victims.
    left = my_orphans()
    deadline = time.monotonic() + 3
    while left and time.monotonic() < deadline:
        time.sleep(0.1)
        left = my_orphans()
    found = []
    if hung:
        found.append("hang")
    elif rc < 0 or (rc >= 128 and not (sig is not None and rc == 128 + sig)) or any(t in so + se for t in CRASH_TEXT):
        found.append("crash")
    if left:
        found.append("left")
        kill_left(left)
    temps = [n for n in os.listdir(TMP) if n not in PLANTED]
    if temps:
        found.append("temporaries")
        for n in temps:
            p = os.path.join(TMP, n)
            shutil.rmtree(p, ignore_errors=True) if os.path.isdir(p) and not os.path.islink(p) else os.unlink(p)
    if any(snapshot(p) != before[p] for p in inputs):
        found.append("overwritten")
        # Put back, so that the next cases run what they expect (a program replaced by a profile that
        # names it would run itself without end).
        for p, data in saved.items():
            if snapshot(p) != before[p]:
                mode = os.stat(p).st_mode if os.path.exists(p) else 0o755
                write(p, data, stat.S_IMODE(mode))
    if (snapshot(VICTIM_FILE), snapshot(VICTIM_DIR)) != VICTIMS:
        found.append("planted")
    text = so + se
    lines = se.decode("utf-8", "replace").splitlines()
    if any(b < 0x20 and b not in (0x0a, 0x09) for b in text) or any(len(l) > 2000 for l in lines) or \
            len(lines) > 100 or any(t in se for t in RAW_TEXT):
        found.append("raw")
    errors = [l for l in lines if l.startswith("roofcast: error:")]
    if hung or "crash" in found:
        outcome = "hang" if hung else "crash"
    elif rc == 0:
        outcome = "accepted"
    elif sig is not None and rc == 128 + sig:
        outcome = "stopped"
    elif rc in (1, 2) and len(errors) == 1 and len(errors[0]) <= MAX_LINE:
        outcome = "clean"
    else:
        outcome = "messy"
        found.append("messy")
    if expect == "error" and outcome != "clean" or expect == "ok" and outcome != "accepted" or \
            expect == "stop" and outcome not in ("stopped", "clean"):
        found.append("expectation")
    if output and outcome == "accepted" and validate_output and snapshot(output) != out_before and \
            os.path.exists(output):
        v = subprocess.run([BIN, "validate", output], stdin=subprocess.DEVNULL, capture_output=True, env=ENV, cwd=WORK)
        if v.returncode != 0:
            found.append("invalid")
            se += b"\nvalidate: " + v.stderr
    if output and os.path.exists(output) and output not in inputs:
        os.unlink(output)
    for f in found:
        counts[f] += 1
    outcomes[outcome] = outcomes.get(outcome, 0) + 1
    results.append((cls, outcome, found))
    if found or os.environ.get("RELIABILITY_VERBOSE"):
        tail = se.decode("utf-8", "replace").strip().splitlines()[-2:] + [f"temporaries: {temps}"] * bool(temps)
        print(f"{'FINDING' if found else 'ok'} [{cls}] {outcome} {found} rc={rc} {seconds:.1f}s: roofcast "
              f"{' '.join(a[:60] for a in args)[:300]}\n    {' | '.join(t[:200] for t in tail)}", flush=True)


# ------------------------------------------------------------------ programs and files
OK = prog("ok.sh", "echo hello")
EXIT3 = prog("exit3.sh", "exit 3")
KILL9 = prog("kill9.sh", "kill -9 $$")
LINGER = prog("linger.sh", "while :; do sleep 1; done")
HANG = prog("hang.sh", f"sh {LINGER}")
HANGKIDS = prog("hangkids.sh", f"sh {LINGER} & sh {LINGER} & sh {LINGER} &\nwhile :; do sleep 1; done")
KIDS_EXIT = prog("kidsexit.sh", f"sh {LINGER} & sh {LINGER} &\necho done")
DEAF = prog("deaf.sh", f"trap '' TERM INT HUP\nwhile :; do sleep 1; done")
BIGOUT = prog("bigout.sh", "head -c 5000000 /dev/zero | tr '\\0' 'x'; echo")
RMDIR = prog("rmdir.sh", 'rm -rf "$ROOFCAST_PROFILE_DIR"; echo gone')
ESCOUT = prog("escout.sh", "printf '\\033[31mred\\033]0;title\\007\\n'; printf 'x%.0s' $(seq 1 3000); echo")
DIGITS = prog("digits.sh", "printf 'elapsed '; head -c 60000 /dev/zero | tr '\\0' '1'; echo")
ELAPSED = prog("elapsed.sh", "echo elapsed 0.25")
NOTIME = prog("notime.sh", "echo nothing here")
TEXT = write(path("in", "text.txt"), "not a program\n")
ARGFILE = write(path("in", "data.txt"), "input data\n")
DASH_H = path("in", "-h")
shutil.copy("/bin/true", DASH_H)
MACHINE = write(path("in", "machine.yaml"), """format_version: 1
name: tiny
compute: {peak_gflops: {double: 10}}
topology:
  cores: 2
  hw_threads: 2
  caches:
    - {name: L1, size_bytes: 32KiB}
    - {name: L2, size_bytes: 512KiB}
levels:
  - {name: L1, bandwidth_gbs: 100}
  - {name: L2, bandwidth_gbs: 50}
  - {name: MEM, bandwidth_gbs: 10}
""")
FIFO = path("in", "fifo")
os.mkfifo(FIFO)
OUT = path("out.json")
LINK_TO_PROG = path("in", "link-to-prog")
os.symlink(OK, LINK_TO_PROG)


def marker_prog(name, content, fname="marker.0.$$.json"):
    """A program that writes a marker file of its own making (the library's format, hostile values)."""
    data = content if isinstance(content, bytes) else json.dumps(content).encode()
    blob = write(os.path.join(PROGS, name + ".json"), data)
    return prog(name + ".sh", f'cp {blob} "$ROOFCAST_MARKER_OUTPUT/{fname}"')


def marker(regions, **top):
    d = {"format": "roofcast-marker", "format_version": 1, "rank": 0, "ranks": 1, "wall_seconds": 0.5,
         "threads": 1, "regions": regions}
    d.update(top)
    return d


def region(path_, **kw):
    r = {"path": path_, "name": path_.split("->")[-1], "calls": 1, "seconds": 0.1}
    r.update(kw)
    return r


def tau_file(functions, metric=""):
    head = f"{len(functions)} templated_functions{('_MULTI_' + metric) if metric else ''}\n"
    head += "# Name Calls Subrs Excl Incl ProfileCalls #\n"
    return head + "".join(f'"{n}" 1 0 {ex} {inc} 0 GROUP="TAU_DEFAULT"\n' for n, ex, inc in functions)


# ------------------------------------------------------------------ the cases
def profile_cases():
    base = ["profile", "--backend", "time", "--no-machine", "-o", OUT]
    for bad in ["0", "-1", "abc", "1e10", "99999999999", "65537", "2.5", ""]:
        case("profile options", base + ["--ranks", bad, "--", OK], "error", [OK])
    for bad in [["--param", "n=1", "--param", "n=2"], ["--param", "n=nan"], ["--param", "n=inf"],
                ["--param", "n=1e300"], ["--param", "=5"], ["--param", "n="],
                ["--param", "a=1", "--param", "b=2", "--param", "c=3"], ["--param", "n=\x1b[31m"]]:
        case("profile options", base + bad + ["--", OK], "error", [OK])
    for bad in ["0", "-1", "1001", "abc", "1e9"]:
        case("profile options", base + ["--repeat", bad, "--", OK], "error", [OK])
    case("profile options", base + ["--param", "a" * 100000 + "=1", "--", OK], "any", [OK], output=OUT)
    for bad in ["-1", "nan", "inf", "1e300", "abc", "-0.5", "1e8"]:
        case("profile options", base + ["--timeout", bad, "--", OK], "error", [OK])
    case("profile options", ["profile", "--backend", "bogus", "-o", OUT, "--", OK], "error", [OK])
    case("profile options", base + ["--import-tau", path("in"), "--", OK], "error", [OK])
    case("profile options", base, "error")
    # Outputs that name an input, and outputs that cannot be written: refused before the program runs.
    case("profile outputs", ["profile", "--backend", "time", "--no-machine", "-o", OK, "--", OK], "error", [OK])
    case("profile outputs", ["profile", "--backend", "time", "--no-machine", "-o", LINK_TO_PROG, "--", OK],
         "error", [OK, LINK_TO_PROG])
    case("profile outputs", ["profile", "--backend", "time", "-o", MACHINE, "--machine", MACHINE, "--", OK],
         "error", [MACHINE])
    case("profile outputs", ["profile", "--backend", "time", "--no-machine", "-o", ARGFILE, "--", OK, ARGFILE],
         "error", [ARGFILE])
    for bad in [path("in"), path("missing", "x.json"), ""]:
        case("profile outputs", ["profile", "--backend", "time", "--no-machine", "-o", bad, "--", HANG], "error",
             [OK], limit=10)
    case("profile outputs", ["profile", "--backend", "time", "--no-machine", "-o", FIFO, "--", OK], "any", [OK],
         limit=10)
    case("profile outputs", ["profile", "--backend", "callgrind", "--no-machine", "-o", OUT, "--callgrind-out", OUT,
                             "--", OK], "error", [OK])
    # Programs that are not programs, or that fail.
    for bad in [path("in", "missing"), path("in"), TEXT, "roofcast-no-such-program", "", FIFO, "\x1b[31mred"]:
        case("profile programs", base + ["--", bad], "error", [TEXT])
    for p in [EXIT3, KILL9]:
        case("profile programs", base + ["--", p], "error", [p])
    for p in [BIGOUT, ESCOUT, KIDS_EXIT, OK]:
        case("profile programs", base + ["--", p], "ok", [p], output=OUT)
    case("profile programs", base + ["--", RMDIR], "any", [RMDIR], output=OUT)
    # Time limits: the whole group stopped, one line, in about the limit.
    for p in [HANG, HANGKIDS, DEAF]:
        case("profile time limits", base + ["--timeout", "1", "--", p], "error", [p], limit=15)
    case("profile time limits", base + ["--timeout", "0.3", "--repeat", "3", "--", HANGKIDS], "error", limit=15)


def marker_cases():
    base = ["profile", "--backend", "time", "--no-machine", "-o", OUT, "--"]
    esc = "a\x1b[2J\x1b]0;t\x07\nb\r"
    files = {
        "work1e300": marker([region("main", flops=1e300, bytes=1e300)]),
        "seconds1e300": marker([region("main", seconds=1e300)]),
        "calls1e300": marker([region("main", calls=1e300)]),
        "counter-neg": marker([region("main", counters={"PAPI_TOT_INS": -5})]),
        "counter-huge": marker([region("main", counters={"PAPI_TOT_INS": 1e300})]),
        "counter-text": marker([region("main", counters={"PAPI_TOT_INS": "x"})]),
        "threads2e9": marker([region("main")], threads=2e9),
        "threads-intmax": marker([region("main")], threads=2147483647),
        "threads1e10": marker([region("main")], threads=1e10),
        "rank1e10": marker([region("main")], rank=1e10),
        "rank-neg": marker([region("main")], rank=-1),
        "rank5": marker([region("main")], rank=5),
        "ranks1e10": marker([region("main")], ranks=1e10),
        "wall-neg": marker([region("main")], wall_seconds=-1),
        "esc-names": marker([region("m" + esc), region("m" + esc + "->x" + esc)]),
        "long-name": marker([region("n" * 1000000)]),
        "many-warnings": marker([region("main")], warnings=[f"region '{i}\x1b[31m' ended twice" for i in range(50000)]),
        "esc-warnings": marker([region("main")], warnings=[esc * 100]),
        "papi-error": marker([region("main")], papi_events=["X"], papi_error=esc * 1000),
        "many-regions": marker([region(f"r{i}") for i in range(100001)]),
        "empty-path": marker([region("")]),
        "not-object": [1, 2],
        "bad-format": {"format": "other"},
        "version2": dict(marker([]), format_version=2),
        "regions-object": marker({}),
    }
    if not QUICK:
        files["distinct-ranks"] = marker([region(f"r{i}") for i in range(60000)])
    for name, content in files.items():
        case("marker files", base + [marker_prog(name, content)], "any", output=OUT)
    raw = {"invalid-json": b"{", "deep": b"[" * 100000 + b"]" * 100000, "number-overflow":
           b'{"format":"roofcast-marker","format_version":1,"rank":0,"regions":[{"path":"m","seconds":1e400}]}',
           "utf8": b'{"format":"roofcast-marker","format_version":1,"rank":0,"regions":[{"path":"m\xff","seconds":1}]}',
           "nul": b"\0" * 100}
    for name, content in raw.items():
        case("marker files", base + [marker_prog(name, content)], "any", output=OUT)
    # Marker paths that are not files: a FIFO, a symlink loop, a directory, two files of one rank.
    prog("marker-fifo.sh", 'mkfifo "$ROOFCAST_MARKER_OUTPUT/marker.0.1.json"')
    prog("marker-loop.sh", 'ln -s marker.0.1.json "$ROOFCAST_MARKER_OUTPUT/marker.0.1.json"')
    prog("marker-dir.sh", 'mkdir "$ROOFCAST_MARKER_OUTPUT/marker.0.1.json"')
    prog("marker-victim.sh", f'ln -s {VICTIM_FILE} "$ROOFCAST_MARKER_OUTPUT/marker.0.1.json"')
    for name in ["marker-fifo", "marker-loop", "marker-dir", "marker-victim"]:
        case("marker files", base + [os.path.join(PROGS, name + ".sh")], "any", output=OUT, limit=15)
    # The marker library itself, past its bounds, under roofcast profile.
    if os.access(DRIVER, os.X_OK):
        scen = [["deep", "100000"], ["deep-open", "1000"], ["names", "20000"], ["work-overflow"], ["fork", "20"],
                ["open-at-exit"]]
        if not QUICK:
            scen += [["deep", "1000000"], ["distinct", "150000"], ["names", "200000"], ["fork", "100"]]
        for s in scen:
            case("marker library", base + [DRIVER] + s, "ok", output=OUT, limit=120)
    else:
        print(f"note: {DRIVER} not built: the marker library's cases were not run")


def tau_cases():
    base = ["profile", "-o", OUT, "--import-tau"]
    ok = tau_file([("main", 10, 100), ("main => solve", 90, 90)])
    dirs = {
        "ok": {"profile.0.0.0": ok, "profile.1.0.0": ok},
        "time-inf": {"profile.0.0.0": tau_file([("main", "inf", "inf")])},
        "time-nan": {"profile.0.0.0": tau_file([("main", "nan", "nan")])},
        "time-1e300": {"profile.0.0.0": tau_file([("main", "1e300", "1e300")])},
        "time-neg": {"profile.0.0.0": tau_file([("main", "-5", "-5")])},
        "counter-inf": {"profile.0.0.0": ok, "MULTI__PAPI_L1_DCM/profile.0.0.0": tau_file([("main", "inf", "inf")], "PAPI_L1_DCM")},
        "esc-names": {"profile.0.0.0": tau_file([("m\x1b[31m\x07", 1, 1)])},
        "utf8": {"profile.0.0.0": "1 templated_functions\n# Name Calls Subrs Excl Incl ProfileCalls\n\"m\xff\" 1 0 1 1 0\n"},
        "long-name": {"profile.0.0.0": tau_file([("n" * 1000000, 1, 1)])},
        "too-many": {"profile.0.0.0": "100001 templated_functions\n# Name Calls Subrs Excl Incl ProfileCalls\n"},
        "bad-name": {"profile.x.0.0": ok},
        "huge-node": {"profile.99999999999.0.0": ok},
        "empty": {},
    }
    if not QUICK:
        dirs["union-past-limit"] = {"profile.0.0.0": tau_file([(f"a{i}", 1, 1) for i in range(60000)]),
                                    "profile.1.0.0": tau_file([(f"b{i}", 1, 1) for i in range(60000)])}
    for name, files in dirs.items():
        d = path("in", "tau-" + name)
        os.makedirs(d, exist_ok=True)
        for fname, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(d, fname)), exist_ok=True)
            write(os.path.join(d, fname), text.encode("latin-1"))
        case("tau", base + [d], "any", [d], output=OUT)
    okdir = path("in", "tau-ok")
    # Symlink loops and things that are not files.
    loop = path("in", "tau-loop")
    os.makedirs(loop)
    os.symlink("profile.0.0.0", os.path.join(loop, "profile.0.0.0"))
    selfdir = path("in", "tau-selfdir")
    os.symlink(selfdir, selfdir)
    multiloop = path("in", "tau-multiloop")
    os.makedirs(multiloop)
    write(os.path.join(multiloop, "profile.0.0.0"), ok)
    os.symlink("MULTI__X", os.path.join(multiloop, "MULTI__X"))
    fifodir = path("in", "tau-fifo")
    os.makedirs(fifodir)
    os.mkfifo(os.path.join(fifodir, "profile.0.0.0"))
    for d in [loop, selfdir, multiloop, fifodir, path("in", "nonexistent"), TEXT, FIFO, "/dev/null"]:
        case("tau", base + [d], "error", limit=10)
    # -o naming a TAU file (or a link to one): refused, the file unchanged.
    tau0 = os.path.join(okdir, "profile.0.0.0")
    case("tau", ["profile", "-o", tau0, "--import-tau", okdir], "error", [tau0])
    link = path("in", "link-to-tau")
    os.symlink(tau0, link)
    case("tau", ["profile", "-o", link, "--import-tau", okdir], "error", [tau0, link])
    case("tau", ["profile", "-o", okdir, "--import-tau", okdir], "error", [okdir])


def threads_cases():
    m = ["--machine", MACHINE]
    base = ["threads", "--sizes", "1000,2000", "--threads", "1,2", "--repetitions", "1"] + m
    cmd = ["--command", f"sh {ELAPSED} {{n}} {{s}}", "--time-regex", "elapsed ([0-9.]+)"]
    for bad in ["inf", "nan", "-1", "0", "1e300", "abc", "-inf"]:
        case("threads options", ["threads", "--repetitions", "1", "--threads", "1"] + m + cmd + ["--bytes-per-n", bad],
             "error", limit=10)
    case("threads options", ["threads", "--repetitions", "1", "--threads", "1"] + m + cmd + ["--bytes-per-n", "1e-300"],
         "error", limit=10)
    for bad in ["(", "[", "a" * 1001, "(" * 600 + ")" * 600, "\\", "a{99999999999}"]:
        case("threads options", base + ["--command", f"sh {ELAPSED} {{n}}", "--time-regex", bad], "error", limit=10)
    case("threads options", base + ["--command", f"sh {ELAPSED} {{n}}", "--time-regex", "(" * 400 + "e" + ")" * 400],
         "any", limit=20)
    for bad in ["-1", "nan", "inf", "1e300", "abc"]:
        case("threads options", base + cmd + ["--timeout", bad], "error", limit=10)
    for bad in ["sh 'x {n}", "sh x", "", "   ", "\x1b[31m {n}"]:
        case("threads options", base + ["--command", bad], "error", limit=10)
    for bad in [["--sizes", "0"], ["--sizes", "-1"], ["--sizes", "1e14"], ["--sizes", "abc"], ["--threads", "100000"],
                ["--repetitions", "0"], ["--repetitions", "1000000000"], ["--holdout", "1"]]:
        case("threads options", ["threads"] + m + cmd + bad, "error", limit=10)
    # Printed times the regex cannot hold, no time, escape sequences.
    case("threads output", base + ["--command", f"sh {DIGITS} {{n}}", "--time-regex", "elapsed ([0-9.]+)"], "error")
    case("threads output", base + ["--command", f"sh {DIGITS} {{n}}", "--time-regex", "elapsed (.*)"], "error")
    case("threads output", base + ["--command", f"sh {NOTIME} {{n}}", "--time-regex", "elapsed ([0-9.]+)"], "error")
    case("threads output", base + ["--command", f"sh {ESCOUT} {{n}}", "--time-regex", "elapsed ([0-9.]+)"], "error")
    case("threads output", base + ["--command", f"sh {BIGOUT} {{n}}"], "ok")
    case("threads output", base + ["--command", f"sh {KIDS_EXIT} {{n}}"], "ok")
    case("threads output", base + ["--command", f"sh {EXIT3} {{n}}"], "error")
    case("threads output", base + ["--command", f"{DASH_H} {{n}}"], "ok")
    # Outputs: refused before the first run.
    for bad, protect in [(path("in"), []), (path("missing", "c.svg"), []), (HANG, [HANG]), (MACHINE, [MACHINE]),
                         (ARGFILE, [ARGFILE])]:
        case("threads outputs", base + ["--command", f"sh {HANG} {{n}} {ARGFILE}", "--timeout", "20", "-o", bad], "error",
             protect, limit=10)
    # Time limits: the program and its children stopped at each point.
    for p in [HANG, HANGKIDS, DEAF]:
        case("threads time limits", base + ["--command", f"sh {p} {{n}}", "--timeout", "0.5"], "error", limit=20)


def stencil_cases():
    base = ["stencil", "--kernel", "jacobi7", "--grid", "16x16x16", "--no-machine"]
    for bad in ["-1", "nan", "inf", "1e300", "abc"]:
        case("stencil options", base + ["--timeout", bad], "error", limit=10)
    for bad in [["--ranks", "0"], ["--ranks", "-1"], ["--ranks", "1e10"], ["--ranks", "abc"], ["--grid", "1x1x1"],
                ["--grid", "abc"], ["--grid", "100000x100000x100000"], ["--grid", "2x3"], ["--k", "0"],
                ["--k", "1e10"], ["--k", "auto"], ["--sweep-k", "2000000000"], ["--steps", "0"], ["--reps", "-1"],
                ["--decomp", "q"], ["--kernel", "bogus"], ["--alpha", "-1"], ["--beta", "0"], ["--threads", "-1"],
                ["--grid", "99999999999999999999x3x3"], ["--simulate"]]:
        case("stencil options", base + bad, "error", limit=10)
    runner = os.path.join(BUILD, "roofcast-stencil")
    if os.access(runner, os.X_OK) and shutil.which("mpirun"):
        case("stencil runs", base + ["--timeout", "120"], "ok", limit=130)
        case("stencil runs", ["stencil", "--kernel", "jacobi7", "--grid", "128x128x128", "--no-machine", "--steps",
                              "200", "--reps", "50", "--timeout", "0.5"], "error", limit=30)
        if not QUICK:
            case("stencil runs", base + ["--ranks", "4", "--timeout", "120"], "ok", limit=130)
            case("stencil runs", base + ["--mpirun-args", "--bogus-option-\x1b[31m"], "error", limit=60)
    else:
        print("note: roofcast-stencil or mpirun missing: stencil's launches were not run")


def inspect_cases():
    true_copy = path("in", "truebin")
    shutil.copy("/bin/true", true_copy)
    # A binary named "-h" with a symbol table: inspected, its name never taken for nm's or objdump's option.
    if os.access(DRIVER, os.X_OK) and shutil.which("nm") and shutil.which("objdump"):
        shutil.copy(DRIVER, path("-h"))
        case("inspect", ["inspect", "--", "-h", "main"], "ok", [path("-h")], limit=30)
    trunc = write(path("in", "trunc"), open("/bin/true", "rb").read()[:200])
    for args in [["--", DASH_H, "main"], ["--", "-h", "--version"],
                 [path("in", "missing"), "main"], [path("in"), "main"], [FIFO, "main"], ["/dev/zero", "main"],
                 [TEXT, "main"], [trunc, "main"], [true_copy, "\x1b[31mmain"], [true_copy, "m" * 100000],
                 [true_copy, ""], [path("in", "\x1b[31mname"), "main"], [true_copy, "no_such_function_xyz"]]:
        case("inspect", ["inspect"] + args, "error", [DASH_H, true_copy], limit=20)


def signal_cases():
    base = ["profile", "--backend", "time", "--no-machine", "-o", OUT]
    for sig in [signal.SIGINT, signal.SIGTERM, signal.SIGHUP]:
        case("signals", base + ["--", HANGKIDS], "stop", sig=sig, limit=20)
        case("signals", ["threads", "--machine", MACHINE, "--sizes", "1000", "--threads", "1", "--repetitions", "1",
                         "--command", f"sh {HANGKIDS} {{n}}"], "stop", sig=sig, limit=20)
    if not QUICK:
        case("signals", base + ["--", DEAF], "stop", sig=signal.SIGTERM, limit=30)
        runner = os.path.join(BUILD, "roofcast-stencil")
        if os.access(runner, os.X_OK) and shutil.which("mpirun"):
            case("signals", ["stencil", "--kernel", "jacobi7", "--grid", "128x128x128", "--no-machine", "--steps",
                             "200", "--reps", "50", "--ranks", "2"], "stop", sig=signal.SIGINT, sig_after=3, limit=30)


for group in [profile_cases, marker_cases, tau_cases, threads_cases, stencil_cases, inspect_cases, signal_cases]:
    group()

print()
print(f"cases: {len(results)}")
for cls in dict.fromkeys(c for c, _, _ in results):
    rows = [r for r in results if r[0] == cls]
    print(f"  {cls:22s} {len(rows):4d} cases, {sum(1 for r in rows if r[2]):3d} with findings")
print("outcomes: " + ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items())))
print(f"crashes: {counts['crash']}")
print(f"hangs: {counts['hang']}")
print(f"overwritten inputs: {counts['overwritten']}")
print(f"written through planted symlinks: {counts['planted']}")
print(f"processes left running: {counts['left']}")
print(f"temporaries left: {counts['temporaries']}")
print(f"profiles written that validate refuses: {counts['invalid']}")
print(f"raw terminal output: {counts['raw']}")
print(f"messy errors: {counts['messy']}")
print(f"unexpected outcomes: {counts['expectation']}")
print(f"findings: {sum(1 for r in results if r[2])}")
