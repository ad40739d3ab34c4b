#!/usr/bin/env python3
"""scripts/bench's program: runs the table of cases in scripts/bench.cases and
writes the report. Started by scripts/bench, which installs what it needs
first; `scripts/bench --help` explains the settings."""

import math, os, re, shlex, signal, shutil, statistics, subprocess, sys, time

try:
    import tomllib
except ImportError:  # Python before 3.11
    sys.exit("bench: needs Python 3.11 or later (tomllib reads scripts/bench.cases)")
from datetime import datetime, timezone

ROOT = os.path.realpath(os.path.join(os.path.dirname(__file__), "..", ".."))
WORK = os.path.join(ROOT, "bench-work")
BEGIN_MARK = "<!-- BEGIN scripts/bench results -->"
END_MARK = "<!-- END scripts/bench results -->"

USAGE = """\
scripts/bench: measures collage against its decode floor, the libvips command
line (vipsthumbnail + vips arrayjoin) and ImageMagick's montage on real photos
and screenshots, case by case as scripts/bench.cases lists them, and writes the
medians, ratios and verdicts to BENCHMARKS.md (between its markers) and stdout.

Usage: scripts/bench            a full run (installs what is missing, builds the
                                release binary as packaged, makes the corpus)
       QUICK=1 scripts/bench    checks the script: small folders, one round,
                                writes bench-work/BENCHMARKS-quick.md
       scripts/bench --list     checks the table, shows every case's commands
                                and targets, runs nothing
       scripts/bench --help

Environment (a setting's default: full run / QUICK=1, from the table):
{settings}
  QUICK=1           the QUICK defaults above, and the report goes to bench-work/
  CASES="..."       which cases to run, by id (default all):
{cases}
  BENCH_OUT=FILE    the markdown file whose marked part is replaced (default
                    BENCHMARKS.md; bench-work/BENCHMARKS-quick.md with QUICK=1)
  CORPUS_PHOTOS=DIR reuse a folder of photos made by scripts/lib/make-corpus.sh
                    (saves the download)
  BENCH_CASES=FILE  another table of cases (default scripts/bench.cases)

Every run of a row is timed by GNU time: wall time, CPU (user + sys, children
included) and the peak resident set of its largest process. Everything it makes
lives in bench-work/ (ignored by git): corpus, folders of links, outputs, each
run's stdout and stderr (log/), results.tsv. Progress goes to stderr, the report
to stdout. Exit status: 0; 1 if a run failed (the report is written all the
same) or the setup did; 64 for a bad setting; 130 or 143 when interrupted (the
run under way is killed with its process group).

{table_doc}"""


def die(msg, status=1):
    print(f"bench: {msg}", file=sys.stderr)
    sys.exit(status)


def step(msg):
    print(f"== {msg}", file=sys.stderr, flush=True)


# ------------------------------------------------------------ child processes
# One child at a time, in its own process group: an interrupt kills the group.
CHILD = None


def kill_child():
    """Kills the child's process group: TERM, then KILL if it is not gone within 10 s."""
    global CHILD
    if CHILD is None:
        return
    pid, CHILD = CHILD.pid, None
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(pid, sig)
        except ProcessLookupError:
            return
        for _ in range(100):  # not Popen.wait: the interrupted wait may hold its lock
            try:
                if os.waitpid(pid, os.WNOHANG)[0]:
                    return
            except ChildProcessError:
                return
            time.sleep(0.1)


def on_signal(signum, _frame):
    print(f"bench: {'interrupted' if signum == signal.SIGINT else 'terminated'}", file=sys.stderr)
    kill_child()
    os._exit(130 if signum == signal.SIGINT else 143)


def spawn(args, *, env=None, stdout=None, stderr=None, cwd=ROOT):
    global CHILD
    CHILD = subprocess.Popen(args, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=stdout,
                             stderr=stderr, start_new_session=True)
    return CHILD


def measured(command, env, log):
    """Runs a bash command under GNU time (not wait4 from here: a child forked from Python
    would count Python's own resident set as its peak); returns (status, wall s, user s,
    sys s, peak RSS KiB of its largest process), all 0 if time recorded nothing."""
    global CHILD
    with open(log + ".out", "wb") as out, open(log + ".err", "wb") as err:
        child = spawn(["/usr/bin/time", "-o", log + ".time", "-f", "%e %U %S %M", "bash", "-c", command],
                      env=env, stdout=out, stderr=err)
        status = child.wait()
    CHILD = None
    with open(log + ".time") as f:
        last = (f.read().splitlines() or [""])[-1].split()
    if len(last) != 4 or not all(re.fullmatch(r"[0-9.]+", x) for x in last):
        return (status or 125), 0.0, 0.0, 0.0, 0
    return status, float(last[0]), float(last[1]), float(last[2]), int(last[3])


def check(args, what, **kw):
    """Runs a setup command (its output to stderr); dies if it fails."""
    global CHILD
    child = spawn(args, stdout=kw.get("stdout", sys.stderr), stderr=sys.stderr, env=kw.get("env"))
    if child.wait() != 0:
        CHILD = None
        die(f"{what} failed")
    CHILD = None


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def output(args):
    try:
        return subprocess.run(args, capture_output=True, text=True, cwd=ROOT).stdout
    except OSError:
        return ""


# ------------------------------------------------------------ the table
def load_table(path):
    with open(path, "rb") as f:
        table = tomllib.load(f)
    doc = []
    with open(path) as f:
        for line in f:
            if not line.startswith("#"):
                break
            doc.append(line[2:].rstrip() if line.startswith("# ") else line[1:].rstrip())
    ids = [c.get("id") for c in table.get("case", [])]
    for c in table.get("case", []):
        where = f"{os.path.relpath(path, ROOT)}: case {c.get('id')!r}"
        for key in ("id", "title"):
            if not isinstance(c.get(key), str):
                die(f"{where}: needs a {key} (a string)", 64)
        if ids.count(c["id"]) > 1 or not re.fullmatch(r"[A-Za-z0-9_-]+", c["id"]):
            die(f"{where}: ids are unique words", 64)
        rows = c.get("row", [])
        if not rows:
            die(f"{where}: has no row", 64)
        for r in rows:
            for key in ("id", "label", "run", "outputs"):
                if not isinstance(r.get(key), str):
                    die(f"{where}: each row needs {key} (a string)", 64)
            if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", r["id"]):
                die(f"{where}: row id {r['id']!r} must be a name (letters, digits, _)", 64)
        for var, spec in c.get("dirs", {}).items():
            if not re.fullmatch(r"[A-Z_][A-Z0-9_]*", var) or spec.split(" ")[0] not in ("six", "photos", "screenshots", "script:"):
                die(f"{where}: dirs {var} = {spec!r}: an upper-case name = six, photos EXPR, screenshots EXPR "
                    "or script: COMMAND", 64)
        for t in c.get("target", []):
            for key in ("text", "value", "want"):
                if not isinstance(t.get(key), str):
                    die(f"{where}: each target needs {key} (a string)", 64)
            if not parse_want(t["want"]):
                die(f"{where}: want {t['want']!r} is not like '<= 1.15x' or '<= 160 MiB'", 64)
    return table, "\n".join(doc).strip()


def parse_want(want):
    m = re.fullmatch(r"\s*(<=|>=)\s*([0-9.]+)\s*(x|MiB)\s*", want)
    return (m.group(1), float(m.group(2)), m.group(3)) if m else None


def settings_from(table, quick):
    """The settings' values (the environment's, else the table's) and the names the environment set."""
    values, overridden = {}, []
    for name, s in table.get("settings", {}).items():
        raw = os.environ.get(name, "")
        if raw:
            overridden.append(name)
        else:
            raw = str(s["quick" if quick else "full"])
        words, one = raw.split(), not isinstance(s["full"], str)
        if not words or not all(re.fullmatch(r"[0-9]+", w) for w in words) or min(map(int, words)) < s.get("min", 1) \
                or one and len(words) != 1:
            die(f"{name} holds {'a whole number' if one else 'whole numbers'} of at least {s.get('min', 1)} "
                f"(got {raw!r})", 64)
        values[name] = int(words[0]) if one else " ".join(words)
    return values, overridden


class Help:
    """collage --help, read once: what it mentions and the defaults it states. Without a
    binary (scripts/bench --list before any build) a default reads as a placeholder."""
    def __init__(self, collage):
        self.text = output([collage, "--help"]) if collage and os.access(collage, os.X_OK) else ""

    def default(self, option):
        if not self.text:
            return f"<{option}'s default>"
        # The option's own entry: the first line that starts with it and states a default (a
        # line of another entry's text may start with it too: "--jobs, ... may be given").
        entries = re.finditer(r"(?m)^\s+(?:-\w, )?" + re.escape(option) + r"\b(.*(?:\n(?!\s+-).*)*)", self.text)
        found = next((f for e in entries
                      if (f := re.search(r"\bdefault:? ([^),;]*[^),;.])", " ".join(e.group(1).split())))), None)
        if not found:
            die(f"collage --help states no default for {option}, which scripts/bench.cases asks for")
        return found.group(1)


def names_for(settings, helper):
    """What an EXPR of the table may name."""
    return dict(settings, NPROC=os.cpu_count(), sheets=lambda n, per=6: math.ceil(n / per), help_default=helper.default)


def evaluate(expr, names):
    try:
        return eval(expr, {"__builtins__": {}}, names)
    except (Missing, ZeroDivisionError):
        raise
    except Exception as e:
        die(f"the table's expression {expr!r} fails: {e!r}", 64)


def fill(text, names):
    """Fills in the ${EXPR} of a title, label, note or target text."""
    return re.sub(r"\$\{([^}]*)\}", lambda m: str(evaluate(m.group(1), names)), text)


# ------------------------------------------------------------ the corpus and the folders
def landscape_photos(photos):
    landscape, portrait = [], []
    for name in sorted(os.listdir(photos)):
        header = output(["vipsheader", "-a", os.path.join(photos, name)])
        fields = dict(re.findall(r"(?m)^(width|height|orientation): (\S+)", header))
        if "width" not in fields or "height" not in fields:
            print(f"bench: skipping unreadable {name}", file=sys.stderr)
            continue
        w, h, o = int(fields["width"]), int(fields["height"]), int(fields.get("orientation", "1"))
        if 5 <= o <= 8:
            w, h = h, w
        (portrait if h > w else landscape).append((name, w, h))
    if not landscape:
        die(f"no landscape photo in {photos}")
    return landscape, portrait


class Folders:
    """The folders the cases read, made on demand, each described for the report."""
    def __init__(self):
        self.made, self.corpus = {}, None

    def need_corpus(self):
        if self.corpus:
            return
        step("Corpus")
        photos = os.path.join(WORK, "corpus", "photos")
        source = os.environ.get("CORPUS_PHOTOS")
        if source and not (os.path.isdir(photos) and os.listdir(photos)):
            if not os.path.isdir(source):
                die(f"CORPUS_PHOTOS={source} is not a folder", 64)
            os.makedirs(photos, exist_ok=True)
            for name in os.listdir(source):
                if name.endswith(".jpg"):
                    try:
                        os.link(os.path.join(source, name), os.path.join(photos, name))
                    except OSError:
                        shutil.copy(os.path.join(source, name), photos)
        check(["bash", "scripts/lib/make-corpus.sh", os.path.join(WORK, "corpus")],
              "scripts/lib/make-corpus.sh (it needs apt-get and the Debian archive)")
        self.photos = photos
        self.landscape, self.portrait = landscape_photos(photos)
        print(f"{len(self.landscape)} landscape photos used, {len(self.portrait)} portrait left out: "
              f"{' '.join(n for n, _, _ in self.portrait) or 'none'}", file=sys.stderr)
        self.corpus = True

    def links(self, name, sources, count):
        """sets/NAME: COUNT hard links cycling over SOURCES, named so that byte order is link order."""
        folder = os.path.join(WORK, "sets", name)
        names = [f"img{i:06d}_{os.path.basename(sources[i % len(sources)])}" for i in range(count)]
        if os.path.isdir(folder) and sorted(os.listdir(folder)) == names:
            return folder
        shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(folder)
        for i, n in enumerate(names):
            os.link(sources[i % len(sources)], os.path.join(folder, n))
        return folder

    def get(self, spec, names):
        """(folder, description, count) for a dirs spec of the table; {count} in the description
        stands for the count, so that a for_each case can describe its folders once."""
        kind, _, arg = spec.partition(" ")
        key = (kind, arg if kind == "script:" else str(evaluate(arg, names)) if arg else "")
        if key in self.made:
            return self.made[key]
        if kind == "six":
            self.need_corpus()
            six = [n for n, w, h in self.landscape if (w, h) == (2560, 1600)][:6]
            if len(six) != 6:
                die(f"need six 2560x1600 landscape photos in {self.photos}, found {len(six)}")
            folder = os.path.join(WORK, "sets", "six")
            shutil.rmtree(folder, ignore_errors=True)
            os.makedirs(folder)
            for n in six:
                os.link(os.path.join(self.photos, n), os.path.join(folder, n))
            made = folder, f"six 2560x1600 landscape photos of the corpus: {' '.join(six)}", None
        elif kind == "photos":
            self.need_corpus()
            count = int(key[1])
            made = (self.links(f"land-{count}", [os.path.join(self.photos, n) for n, _, _ in self.landscape], count),
                    f"{{count}} hard links cycling over the corpus's {len(self.landscape)} landscape photos", count)
        elif kind == "screenshots":
            self.need_corpus()
            count = int(key[1])
            step("PNG screenshots (headless Chromium)")
            check(["bash", "scripts/lib/make-screenshots.sh", os.path.join(WORK, "screens"), "0", self.photos],
                  "scripts/lib/make-screenshots.sh")
            shots = os.path.join(WORK, "screens", "shots")
            sources = [os.path.join(shots, n) for n in sorted(os.listdir(shots))]
            made = (self.links(f"shots-{count}", sources, count),
                    f"{{count}} hard links cycling over {len(sources)} PNG screenshots (1920x1080) of pages rendered by "
                    "headless Chromium (scripts/lib/make-screenshots.sh)", count)
        elif kind == "script:":
            self.need_corpus()
            folder = os.path.join(WORK, "sets", "script-" + re.sub(r"[^A-Za-z0-9]+", "-", arg).strip("-")[:80])
            if not os.path.exists(os.path.join(folder, ".made")):
                shutil.rmtree(folder, ignore_errors=True)
                os.makedirs(folder)
                step(f"Making {os.path.relpath(folder, ROOT)}: {arg}")
                check(["bash", "-c", arg], arg, env=dict(os.environ, DIR=folder, CORPUS=self.photos))
                open(os.path.join(folder, ".made"), "w").close()
            made = folder, "made by `" + arg.replace("{", "{{").replace("}", "}}") + "`", None
        else:
            die(f"unknown dirs spec {spec!r} (six, photos EXPR, screenshots EXPR, script: COMMAND)", 64)
        self.made[key] = made
        return made


# ------------------------------------------------------------ requirements
def unmet(requires, help_text):
    """The reason the first unmet requirement gives, or None."""
    for req in requires or []:
        kind, _, what = (s.strip() for s in req.partition(":"))
        if kind == "help" and what not in help_text:
            return f"collage --help does not mention {what}"
        if kind == "command" and not shutil.which(what):
            return f"no {what} on PATH"
        if kind == "file" and not os.path.exists(os.path.join(ROOT, what)):
            return f"{what} does not exist"
        if kind not in ("help", "command", "file"):
            return f"unknown requirement {req!r} (help:, command:, file:)"
    return None


# ------------------------------------------------------------ one case
class Row:
    def __init__(self, case, spec, names, suffix=""):
        self.case, self.spec, self.names = case, spec, names
        self.value = names.get(case.var) if case.var else None  # N of a for_each case
        self.id = spec["id"] + suffix
        label = fill(spec["label"], names)
        self.label = f"{label}, {fill(case.spec['each_label'], names)}" if case.spec.get("each_label") else label
        self.base_label = label
        self.command = spec["run"]
        self.outputs = int(evaluate(spec["outputs"], names))
        self.size = spec.get("size", "1200x800")
        self.pages = int(evaluate(spec["pages"], names)) if "pages" in spec else None
        self.note_file = spec.get("note")  # a file the run leaves in $OUT: its first line goes to the notes
        self.after = spec.get("after")  # a command run after the measured one, not timed (it may write the note)
        self.not_run = None
        self.results = []  # (status, wall, user, sys, rss KiB, note, bytes left in $OUT)

    def ok(self):
        return [r for r in self.results if r[0] == 0]

    def median(self, field):
        vals = {"wall": [r[1] for r in self.ok()], "cpu": [r[2] + r[3] for r in self.ok()],
                "rss": [r[4] / 1024 for r in self.ok()], "bytes": [r[6] / 2**20 for r in self.ok()]}[field]
        return statistics.median(vals) if vals else None


class Case:
    def __init__(self, spec, settings, helper):
        self.spec, self.id = spec, spec["id"]
        self.base = names_for(settings, helper)
        self.title = fill(spec["title"], self.base)
        self.notes = [fill(n, self.base) for n in spec.get("notes", [])]
        self.runs = settings[spec.get("runs", "RUNS")]
        self.values, self.var = [None], None
        if spec.get("for_each"):
            var, _, setting = spec["for_each"].partition(" in ")
            self.var = var.strip()
            self.values = [int(v) for v in str(settings[setting.strip()]).split()]
        self.rows = []
        for v in self.values:
            names = dict(self.base, **({self.var: v} if v is not None else {}))
            for r in spec["row"]:
                if r.get("when") and not evaluate(r["when"], names):
                    continue
                self.rows.append(Row(self, r, names, f"_{v}" if v is not None else ""))
        self.targets = [t for t in spec.get("target", []) if not t.get("when") or evaluate(t["when"], self.base)]
        self.not_run = None
        self.folders = {}  # VAR -> (folder, description), per value of for_each

    def prepare(self, folders):
        for v in self.values:
            names = dict(self.base, **({self.var: v} if v is not None else {}))
            self.folders[v] = {var: folders.get(spec, names) for var, spec in self.spec.get("dirs", {}).items()}


def first_error(path):
    with open(path, errors="replace") as f:
        lines = [l.strip() for l in f if l.strip() and "VIPS-WARNING" not in l]
    pick = next((l for l in lines if re.search(r"error|unable|fail|exhausted|not ", l, re.I)), lines[-1] if lines else "")
    return pick.replace(WORK + "/", "bench-work/").replace("\t", " ").replace("|", "/")[:200]


def image_size(path):
    w = output(["vipsheader", "-f", "width", path]).strip()
    h = output(["vipsheader", "-f", "height", path]).strip()
    return f"{w}x{h}"


def size_matches(size, want):
    """WIDTHxHEIGHT as wanted; a wanted "WIDTHx" (a film's sheet, as tall as its rows) checks the width alone."""
    return size.split("x")[0] == want[:-1] if want.endswith("x") else size == want


def run_row(row, rnd, env_base, tsv, loads):
    case = row.case
    out = os.path.join(WORK, "out", f"c{case.id}_{row.id}")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    v = row.value
    env = dict(env_base, OUT=out, **{k: f for k, (f, _, _) in case.folders.get(v, {}).items()})
    if v is not None:
        env[case.var] = str(v)
    log = os.path.join(WORK, "log", f"c{case.id}_{row.id}.r{rnd}")
    loads.append(float(loadavg().split()[0]))
    status, wall, user, sys_, rss = measured(row.command, env, log)
    note = ""
    if status == 0 and row.after:
        with open(log + ".after.err", "wb") as err:
            child = spawn(["bash", "-c", row.after], env=env, stdout=err, stderr=err)
            if child.wait() != 0:
                status, note = 125, f"after: exit {child.returncode}: {first_error(log + '.after.err')}"
    if status != 0:
        note = note or f"exit {status}: {first_error(log + '.err')}"
    else:
        jpgs = sorted(n for n in os.listdir(out) if n.endswith(".jpg"))
        if len(jpgs) != row.outputs:
            status, note = 125, f"wrote {len(jpgs)} of {row.outputs} outputs"
        elif jpgs and not size_matches(image_size(os.path.join(out, jpgs[0])), row.size):
            status, note = 125, f"output is {image_size(os.path.join(out, jpgs[0]))}, not {row.size}"
        elif row.pages is not None:
            pdfs = sorted(n for n in os.listdir(out) if n.endswith(".pdf"))
            info = output(["pdfinfo", os.path.join(out, pdfs[0])]) if len(pdfs) == 1 else ""
            pages = re.search(r"(?m)^Pages:\s+(\d+)", info)
            if not pages or int(pages.group(1)) != row.pages:
                status, note = 125, f"wrote {len(pdfs)} PDF(s) of {pages.group(1) if pages else 'no'} pages, not one of {row.pages}"
    if status == 0 and row.note_file:
        said = os.path.join(out, row.note_file)
        note = open(said, errors="replace").readline().strip().replace("|", "/") if os.path.exists(said) else ""
    left = sum(os.path.getsize(os.path.join(out, n)) for n in os.listdir(out))
    row.results.append((status, wall, user, sys_, rss, note, left))
    tsv.write("\t".join(map(str, (case.id, row.id, rnd, status, f"{wall:.3f}", f"{user:.3f}", f"{sys_:.3f}", rss, note, left))) + "\n")
    tsv.flush()
    what = (f"{wall:6.2f} s wall, {user + sys_:6.2f} s CPU, {rss // 1024:5d} MiB" if status == 0 else f"FAILED, {note}")
    print(f"   {row.label:<44} run {rnd}/{case.runs}: {what}", file=sys.stderr, flush=True)


# ------------------------------------------------------------ the report
class Missing(Exception):
    pass


class Medians:
    def __init__(self, case, field):
        self.case, self.rows, self.field = case, {r.id: r for r in case.rows}, field

    def __getattr__(self, row_id):
        row = self.rows.get(row_id)
        if row is None and any(r["id"] == row_id for r in self.case.spec["row"]):
            raise Missing("not run: its row's when is false")
        if row is None:
            die(f"case {self.case.id}: a target names {row_id!r}, which is not one of its rows", 64)
        if row.not_run:
            raise Missing(f"not run: {row.not_run}")
        value = row.median(self.field)
        if value is None:
            raise Missing("not measured (every run of a row it needs failed)")
        return value


def verdict(case, target):
    op, limit, unit = parse_want(target["want"])
    want = f"{op} {limit:g}{'x' if unit == 'x' else ' MiB'}"
    if case.not_run:
        return want, "—", f"not run: {case.not_run}"
    try:
        value = evaluate(target["value"], {f: Medians(case, f) for f in ("wall", "cpu", "rss", "bytes")})
    except Missing as e:
        return want, "—", str(e)
    except ZeroDivisionError:
        return want, "—", "not measured (a median of 0)"
    shown = f"{value:.2f}x" if unit == "x" else f"{value:.0f} MiB"
    value = round(value, 2 if unit == "x" else 0)
    holds = value >= limit if op == ">=" else value <= limit
    return want, shown, "**holds**" if holds else "**misses**"


def fmt(v, digits=2):
    return "—" if v is None else f"{v:.{digits}f}"


def ratio(a, b):
    return "—" if a is None or b is None or b <= 0 else f"{a / b:.2f}x"


def case_table(case):
    base = case.rows[0]
    lines = ["| tool | runs ok | median wall s | wall min–max s | median CPU s | median peak RSS MiB "
             "| wall ratio | CPU ratio | RSS ratio | notes |", "| --- " * 10 + "|"]
    for r in case.rows:
        walls = [x[1] for x in r.ok()]
        notes = f"not run: {r.not_run}" if r.not_run else "; ".join(dict.fromkeys(x[5] for x in r.results if x[0]))
        if notes and not r.not_run:
            notes = "FAILED: " + notes
        said = "; ".join(dict.fromkeys(x[5] for x in r.results if not x[0] and x[5]))  # a row's `note`
        notes = "; ".join(n for n in (notes, said) if n)
        lines.append(f"| {r.label} | {len(r.ok())}/{len(r.results)} | {fmt(r.median('wall'))} | "
                     + (f"{min(walls):.2f}–{max(walls):.2f}" if walls else "—")
                     + f" | {fmt(r.median('cpu'))} | {fmt(r.median('rss'), 0)} | "
                     + " | ".join(ratio(r.median(f), base.median(f)) for f in ("wall", "cpu", "rss"))
                     + f" | {notes} |")
    return lines


def commands(case):
    lines, seen = [], set()
    for r in case.rows:
        if r.spec["id"] in seen:
            continue
        seen.add(r.spec["id"])
        lines.append(f"- {r.base_label}: `{r.command}`" + (f"; then, not timed, `{r.after}`" if r.after else ""))
    for var, (_, text, count) in case.folders.get(case.values[0], {}).items():
        if case.var:
            text = f"for each {case.var} in {' '.join(map(str, case.values))}: " + text.format(count=f"${case.var}")
        lines.append(f"- `${var}`: {text.format(count=count)}")
    return lines


def machine_lines(collage, elapsed, load_start, loads, settings, selected):
    commit = output(["git", "rev-parse", "--short", "HEAD"]).strip() or "unknown"
    if output(["git", "status", "--porcelain", "--untracked-files=no", "--", "Sources", "Package.swift"]).strip():
        commit += " (with uncommitted changes to Sources or Package.swift)"
    cpu = re.search(r"(?m)^model name\s*:\s*(.*)$", open("/proc/cpuinfo").read())
    mem = int(re.search(r"(?m)^MemTotal:\s*(\d+)", open("/proc/meminfo").read()).group(1))
    magick = output(["montage", "-version"]).splitlines()[:1]
    limits = ", ".join(f"{m[0]} {m[1]}" for m in re.findall(r"(?m)^\s*(Area|Memory|Map|Disk):\s*(\S+)",
                                                          output(["identify", "-list", "resource"])))
    version = subprocess.run(["swift", "--version"], capture_output=True, text=True)
    swift = re.search(r"Swift version \S+", version.stdout + version.stderr)
    load_end = loadavg()
    lines = [
        f"- date: {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC; the run took {elapsed // 60} min {elapsed % 60} s",
        f"- CPU: {os.cpu_count()} cores, {cpu.group(1).strip() if cpu else '?'}",
        f"- memory: {mem / 1048576:.1f} GiB",
        f"- kernel: {os.uname().sysname} {os.uname().release}",
        f"- load average (1, 5, 15 min) at start: {load_start}; at end: {load_end}"
        + (f"; 1-min load at the start of each run: median {statistics.median(loads):.2f}, max {max(loads):.2f}" if loads else ""),
        f"- libvips: {output(['vips', '--version']).strip()}",
        f"- ImageMagick: {magick[0].replace('Version: ', '') if magick else '?'}; policy limits: {limits}",
        f"- Swift: {swift.group(0) if swift else '?'}",
        f"- collage: commit {commit}, {output([collage, '--version']).strip() or '?'}, release build with the static Swift runtime, as packaged",
        "- settings: " + " ".join(f"{k}={shlex.quote(str(v))}" for k, v in settings.items())
        + f" QUICK={1 if os.environ.get('QUICK') == '1' else 0} CASES={shlex.quote(' '.join(selected))}",
    ]
    return lines


def report(cases, folders, quick, settings, overridden, machine, chart_links):
    rounds = {}
    for c in cases:
        if not c.not_run:
            rounds.setdefault(f"{c.spec.get('runs', 'RUNS')}={c.runs}", []).append(c.id)
    runs = "; ".join(f"{k} for case{'s' if len(v) > 1 else ''} {' '.join(v)}" for k, v in rounds.items())
    out = ["## Results", ""]
    if quick:
        out += ["**QUICK run** (checks the script only: small folders, one round); the numbers are indicative, "
                "not the benchmark.", ""]
    out += [f"Medians of interleaved rounds ({runs or 'none run'}): each round runs every row of a "
            "case once, in turn, so noise hits all alike. Wall, CPU (user + sys, children included) and peak RSS "
            "(of the largest single process) come from `/usr/bin/time -f '%e %U %S %M'`. Ratios are a row's median over the "
            "first row's. A failed run is left out of the medians and named in the notes. On a busy machine the "
            "CPU ratio is the steadier hint (compare the load averages below).",
            "",
            "Each case's commands are printed as scripts/bench.cases has them: run by bash from the repository's "
            "root, with `collage` the release build under test, `floor` built from scripts/lib/floor.c, `$OUT` an "
            "empty folder for each run and the folders named below."]
    if folders.corpus:
        out += ["", "Photos are read from the page cache. Folders of photos are hard links cycling over the corpus's "
                f"{len(folders.landscape)} landscape photos (displayed width ≥ height, checked with vipsheader; the "
                f"{len(folders.portrait)} portrait ones are left out, since collage rejects them and the other tools do not)."]
    out.append("")
    targets = []
    for c in cases:
        out += [f"### {c.id}. {c.title}", ""]
        if c.not_run:
            out += [f"Not run: {c.not_run}.", ""]
        else:
            out += case_table(c) + [""] + commands(c) + [""]
        for note in c.notes:
            out += [note, ""]
        if c.id in chart_links:
            out += [f"![wall time and peak memory against the number of photos]({chart_links[c.id]})", ""]
        for t in c.targets:
            targets.append((f"{c.id}: {fill(t['text'], c.base)}",) + verdict(c, t))
    out += ["### Targets", ""]
    if quick:
        out += ["(QUICK run: smaller folders than the targets are about; indicative only.)", ""]
    out += ["| target | wanted | measured | verdict |", "| --- | --- | --- | --- |"]
    out += [f"| {' | '.join(t)} |" for t in targets]
    out += ["", "### Machine", ""] + machine + [""]
    made_by = " ".join(f"{k}={shlex.quote(os.environ[k])}" for k in overridden + [k for k in ("QUICK", "CASES")
                                                                                    if os.environ.get(k)])
    out += ["This part was written by `" + (made_by + " " if made_by else "") + "scripts/bench`; "
            "`scripts/bench --help` lists its settings. Every run's times are in bench-work/results.tsv, "
            "its output in bench-work/log/."]
    return "\n".join(out) + "\n"


def draw_chart(case, path):
    spec = case.spec["chart"]
    data = os.path.join(WORK, f"chart-{case.id}.dat")
    rows = {r.id: r for r in case.rows}
    with open(data, "w") as f:
        for v in case.values:
            vals = [rows.get(f"{rid}_{v}") for rid in spec["rows"]]
            cells = [fmt(r.median(field), 3) if r else "—" for field in ("wall", "rss") for r in vals]
            f.write(f"{v} " + " ".join("NaN" if c == "—" else c for c in cells) + "\n")
    titles = {r.spec["id"]: r.base_label for r in case.rows}
    n = len(spec["rows"])
    def plot(first):
        return ", ".join(f"\"{data}\" using 1:{first + i} with linespoints lw 2 title \"{titles.get(rid, rid)}\""
                         for i, rid in enumerate(spec["rows"]))
    script = f"""set terminal pngcairo size 1200,480 font "DejaVu Sans,11"
set output "{path}"
set multiplot layout 1,2 title "{spec['title']} ({datetime.now(timezone.utc):%Y-%m-%d}, {os.cpu_count()} cores; medians of {case.runs})"
set key top left
set grid
set xlabel "{spec.get('xlabel', case.var)}"
set ylabel "wall time (s)"
set logscale y
plot {plot(2)}
unset logscale y
set key center right
set ylabel "peak memory (MiB, largest process)"
set yrange [0:*]
plot {plot(2 + n)}
unset multiplot
"""
    if subprocess.run(["gnuplot"], input=script, text=True).returncode != 0:
        print("bench: gnuplot failed; no chart", file=sys.stderr)


def replace_marked(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    old = open(path).read() if os.path.exists(path) else ""
    lines = old.splitlines()
    if BEGIN_MARK in lines and END_MARK in lines and lines.index(BEGIN_MARK) < lines.index(END_MARK):
        b, e = lines.index(BEGIN_MARK), lines.index(END_MARK)
        new = "\n".join(lines[:b + 1]) + "\n" + text + "\n".join(lines[e:]) + "\n"
    else:
        new = (old + "\n" if old else "# Benchmarks\n\n") + BEGIN_MARK + "\n" + text + END_MARK + "\n"
    with open(path + ".tmp", "w") as f:
        f.write(new)
    os.replace(path + ".tmp", path)


# ------------------------------------------------------------ main
def main():
    args = sys.argv[1:]
    table_path = os.path.abspath(os.environ.get("BENCH_CASES") or os.path.join(ROOT, "scripts", "bench.cases"))
    if not os.path.exists(table_path):
        die(f"no table of cases at {table_path}", 64)
    table, table_doc = load_table(table_path)
    quick = os.environ.get("QUICK", "0") == "1"
    if args and args[0] in ("-h", "--help"):
        settings = "\n".join(f"  {k}={s['full']} / {s['quick']}".ljust(30) + f" {s.get('help', '')}"
                             for k, s in table.get("settings", {}).items())
        settings_now, _ = settings_from(table, quick)
        helper = Help(os.path.join(ROOT, ".build-bench", "release", "collage"))
        cases = "\n".join(f"                    {c['id']}: {fill(c['title'], names_for(settings_now, helper))}"
                           for c in table["case"])
        print(USAGE.format(settings=settings, cases=cases, table_doc="From " + os.path.relpath(table_path, ROOT)
                           + ":\n\n" + table_doc))
        return 0
    if args and args[0] not in ("--list", "--check") or len(args) > 1:
        die(f"no arguments expected (got {' '.join(args)!r}) but --list or --help; settings are environment "
            "variables, see scripts/bench --help", 64)
    settings, overridden = settings_from(table, quick)
    all_ids = [c["id"] for c in table["case"]]
    selected = os.environ.get("CASES", "").split() or all_ids
    for cid in selected:
        if cid not in all_ids:
            die(f"CASES names {cid!r}, which scripts/bench.cases does not have ({' '.join(all_ids)})", 64)
    if args == ["--check"]:  # scripts/bench, before it installs and builds
        return 0
    if args == ["--list"]:
        helper = Help(os.path.join(ROOT, ".build-bench", "release", "collage"))
        for spec in table["case"]:
            case = Case(spec, settings, helper)
            print(f"{case.id}. {case.title}" + (f"  (requires {', '.join(spec['requires'])})" if spec.get("requires") else ""))
            for var, d in spec.get("dirs", {}).items():
                print(f"   ${var}: {d}")
            for r in case.rows:
                print(f"   {r.id}: {r.label} ({r.outputs} outputs)\n      {r.command}")
            for t in case.targets:
                print(f"   target: {fill(t['text'], case.base)}: {t['value']} {t['want']}")
        return 0

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    start, load_start = time.monotonic(), loadavg()
    for d in ("bin", "log", "out", "sets"):
        os.makedirs(os.path.join(WORK, d), exist_ok=True)

    step("Building collage (release, static Swift runtime, as packaged)")
    build = ["swift", "build", "-c", "release", "--product", "collage", "--static-swift-stdlib",
             "--scratch-path", os.path.join(ROOT, ".build-bench")]
    check(build, " ".join(build))
    collage = os.path.join(output(build + ["--show-bin-path"]).strip(), "collage")
    if not os.access(collage, os.X_OK):
        die(f"no binary at {collage}")
    bindir = os.path.join(WORK, "bin")
    for name, target in (("collage", collage),):
        link = os.path.join(bindir, name)
        if os.path.lexists(link):
            os.remove(link)
        os.symlink(target, link)
    cflags = output(["pkg-config", "--cflags", "--libs", "vips"]).split()
    check(["cc", "-O2", "-o", os.path.join(bindir, "floor"), "scripts/lib/floor.c"] + cflags,
          "building the floor (scripts/lib/floor.c)")

    helper = Help(collage)
    cases = [Case(spec, settings, helper) for spec in table["case"] if spec["id"] in selected]
    cases = [c for c in cases if not c.spec.get("when") or evaluate(c.spec["when"], c.base)]
    for c in cases:
        c.not_run = unmet([r for r in c.spec.get("requires", []) if not r.startswith("command")], helper.text)
    packages = sorted({p for c in cases if not c.not_run for p in c.spec.get("packages", [])})
    if packages:
        step(f"Installing what is missing of: {' '.join(packages)}")
        check(["bash", "-c", 'source scripts/lib/common.sh && ensure_packages "$@"', "bench"] + packages,
              "installing " + " ".join(packages))
    folders = Folders()
    for c in cases:
        c.not_run = c.not_run or unmet(c.spec.get("requires"), helper.text)
        for r in c.rows:
            r.not_run = c.not_run or unmet(r.spec.get("requires"), helper.text)
        if c.not_run:
            print(f"bench: case {c.id} not run: {c.not_run}", file=sys.stderr)
        elif c.spec.get("dirs"):
            step(f"Folders of case {c.id}")
            c.prepare(folders)
    if folders.corpus:  # every tool reads photos from the page cache, never from the disk
        for n in os.listdir(folders.photos):
            with open(os.path.join(folders.photos, n), "rb") as f:
                while f.read(1 << 20):
                    pass

    env = dict(os.environ, PATH=bindir + os.pathsep + os.environ.get("PATH", ""),
               **{k: str(v) for k, v in settings.items()})
    loads = []
    with open(os.path.join(WORK, "results.tsv"), "w") as tsv:
        for c in cases:
            rows = [r for r in c.rows if not r.not_run] if not c.not_run else []
            if not rows:
                continue
            step(f"Case {c.id}: {c.runs} round(s) of: " + "; ".join(r.label for r in rows))
            for rnd in range(1, c.runs + 1):
                for r in rows:
                    run_row(r, rnd, env, tsv, loads)
    for d in os.listdir(os.path.join(WORK, "out")):  # the vips tiles are big; the outputs stay for a look
        shutil.rmtree(os.path.join(WORK, "out", d, "tiles"), ignore_errors=True)

    out_md = os.environ.get("BENCH_OUT") or ("bench-work/BENCHMARKS-quick.md" if quick else "BENCHMARKS.md")
    out_md = out_md if os.path.isabs(out_md) else os.path.join(ROOT, out_md)
    chart_links = {}
    for c in cases:
        if c.spec.get("chart") and not c.not_run:
            chart = os.path.join(ROOT, c.spec["chart"]["file"])
            if quick:
                chart = os.path.join(WORK, os.path.splitext(os.path.basename(chart))[0] + "-quick.png")
            draw_chart(c, chart)
            chart_links[c.id] = os.path.relpath(chart, os.path.dirname(out_md))
    elapsed = int(time.monotonic() - start)
    machine = machine_lines(collage, elapsed, load_start, loads, settings, [c.id for c in cases])
    text = report(cases, folders, quick, settings, overridden, machine, chart_links)
    replace_marked(out_md, text)
    step(f"Wrote {out_md} ({elapsed // 60} min {elapsed % 60} s)")
    sys.stdout.write(text)
    failed = sum(1 for c in cases for r in c.rows for x in r.results if x[0] != 0)
    if failed:
        print(f"bench: {failed} run(s) failed; the report names them", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    finally:
        kill_child()
