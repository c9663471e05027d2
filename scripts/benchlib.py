"""The shared pieces of scripts/bench (docs/build.md, "Benchmarks"): the list
of suites, the dispatch, the machine header, the output folder and its
markdown and CSV files. Standard library only.

A suite is an executable in scripts/bench_suites/ that prints its results
(markdown tables and notes) on stdout and its progress on stderr. The
dispatcher runs it with BENCH_OUT_DIR set to the run's output folder (for
the raw files a suite keeps: JSON, raw samples, charts), echoes its stdout to
the terminal under the machine header and then writes into that folder
results.md (the header and the whole output) and one CSV per markdown table
(results.csv, or results-1.csv, results-2.csv, ... when there are several),
each CSV starting with the header as `# ` comment lines.
"""
import argparse
import csv
import datetime
import os
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parent.parent
SUITES_DIR = ROOT / "scripts" / "bench_suites"
# The output folder, for the suites' own raw files (not JOULE_*: joule rejects
# unknown JOULE_* variables).
OUT_ENV = "BENCH_OUT_DIR"
PROG = "scripts/bench"


class Suite(NamedTuple):
    summary: str       # one line for `scripts/bench --help`
    quick: list        # its quick form, for `scripts/bench all`
    builds: bool       # takes --no-build


SUITES = {
    "micro": Suite("core micro-benchmarks: joule vs libgomp, libomp, oneTBB, StarPU",
                   ["--quick"], True),
    "apps": Suite("every application on every runtime, with the modelled energy",
                  ["--quick"], True),
    "blocked": Suite("blocked LU / tiled Cholesky GFLOP/s, g++ and clang++ drivers",
                     ["--quick"], True),
    "fine-blocks": Suite("LU / Cholesky at 32- and 128-element blocks over 1024², joule vs OpenMP",
                         ["--quick"], True),
    "energy": Suite("energy policies under emulated DVFS vs the ideal saving",
                    ["--quick"], True),
    "launches": Suite("launch-to-launch spread of the micro-benchmarks", ["--quick"], True),
    "oversub": Suite("more workers than CPUs (16): busy rounds and chains, joule vs OpenMP, oneTBB",
                     ["--quick"], True),
    "metg": Suite("METG(50%) of a Task Bench stencil: joule, joulecc, libjoule-omp vs OpenMP, oneTBB",
                  ["--quick"], True),
    "omp": Suite("EPCC OpenMP overheads (--suite: task codes), libgomp/joule/libomp",
                 ["--quick"], False),
    "pils": Suite("PILS: CPU lending (LeWI) over MPI, 2 ranks x 1 CPU", ["--quick"], True),
    "compile": Suite("joulecc translation and compile times vs the plain compiler",
                     ["--quick"], False),
    "service": Suite("round trip of one jouled request (set, energy) over a fake tree; root",
                     ["--quick"], False),
}
ALL_SUMMARY = "every suite in its quick form (--full: in full), one folder each"
MICRO_COMPAT = {"--no-build", "--quick", "--build-only"}  # `scripts/bench [these]` = micro
COMMON_HELP = """Options every suite takes:
  --out DIR        the output folder (default build/bench-results/
                   <suite>-<YYYYmmdd-HHMMSS>/): results.md and results*.csv,
                   each with the machine header, and the suite's raw files
  --build-dir DIR  the build folder whose binaries the suite runs (and builds,
                   unless --no-build), e.g. --build-dir build/release --no-build"""


def fail(message):
    print(f"{PROG}: {message}", file=sys.stderr)
    return 2


def suite_names():
    return ", ".join(SUITES) + ", all"


def usage():
    width = max(map(len, SUITES))
    lines = [f"usage: {PROG} <suite> [options]    (<suite> --help: its options)",
             "", "One entry point for joule's benchmarks. Suites:"]
    lines += [f"  {name:<{width}}  {s.summary}" for name, s in SUITES.items()]
    lines += [f"  {'all':<{width}}  {ALL_SUMMARY}", "", COMMON_HELP, "",
              f"A run prints its tables, then writes them into the output folder.\n"
              f"`{PROG}` with no suite (or with only --no-build, --quick, --build-only)\n"
              f"runs micro, as before; that form goes after one release."]
    return "\n".join(lines)


class ArgumentParser(argparse.ArgumentParser):
    """argparse for the python suites: an unknown option's error names the allowed ones."""

    def error(self, message):
        if "unrecognized arguments" in message:
            names = [o for a in self._actions for o in a.option_strings if o.startswith("--")]
            message += f"; allowed: {', '.join(names)}"
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


# ---- the machine header ------------------------------------------------------------

def _first_line(argv):
    try:
        r = subprocess.run(argv, capture_output=True, text=True, timeout=20)
        return (r.stdout or r.stderr).strip().splitlines()[0]
    except (OSError, IndexError, subprocess.TimeoutExpired):
        return None


def cpu_model():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    return next((l.split(":", 1)[1].strip() for l in out.splitlines()
                 if l.startswith("Model name")), "unknown CPU")


def memory():
    try:
        for line in open("/proc/meminfo"):
            if line.startswith("MemTotal:"):
                return f"{int(line.split()[1]) / 1024 ** 2:.1f} GiB"
    except OSError:
        pass
    return "unknown"


def loadavg():
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def machine_summary():
    """One line: CPU model, CPU count, memory, kernel."""
    cpus, usable = os.cpu_count(), len(os.sched_getaffinity(0))
    count = f"{cpus} CPUs" + (f" ({usable} usable)" if usable != cpus else "")
    u = os.uname()
    return f"{cpu_model()}, {count}, {memory()} memory, Linux {u.release} ({u.machine})"


def compilers():
    names = []
    for cc in ("g++", "clang++"):
        names.append(_first_line([cc, "--version"]) if shutil.which(cc) else f"{cc} absent")
    return "; ".join(names)


def _git(*args):
    try:
        r = subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True,
                           timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return r.stdout.strip() if r.returncode == 0 else None


def source():
    head = _git("rev-parse", "--short", "HEAD")
    if not head:
        return "not a git checkout"
    dirty = _git("status", "--porcelain", "-uno")
    return (f"{head} ({_git('rev-parse', '--abbrev-ref', 'HEAD')}"
            f"{', uncommitted changes' if dirty else ''})")


def header(command):
    """The header of a run, read at its start: [(key, value)]."""
    now = datetime.datetime.now(datetime.timezone.utc)
    return [("command", command),
            ("date", now.strftime("%Y-%m-%d %H:%M:%S UTC")),
            ("machine", machine_summary()),
            ("compilers", compilers()),
            ("load average at start", loadavg()),
            ("source", source())]


def header_text(fields, prefix):
    return "".join(f"{prefix}{k}: {v}\n" for k, v in fields)


# ---- markdown tables and files ---------------------------------------------------

def md_tables(text):
    """[(title, columns, rows)] of the markdown tables in text; a table's title
    is the last non-blank line above it."""
    tables, lines, title, i = [], text.splitlines(), "", 0
    split = lambda line: [c.strip() for c in line.strip().strip("|").split("|")]  # noqa: E731
    while i < len(lines):
        line = lines[i].strip()
        sep = lines[i + 1].strip() if i + 1 < len(lines) else ""
        if line.startswith("|") and sep.startswith("|") and set(sep) <= set("|-: "):
            columns, rows, i = split(line), [], i + 2
            while i < len(lines) and lines[i].strip().startswith("|"):
                rows.append(split(lines[i]))
                i += 1
            tables.append((title, columns, rows))
            title = ""
            continue
        if line:
            title = line.lstrip("#").strip()
        i += 1
    return tables


def md_table(columns, rows):
    """A markdown table (string, no trailing newline)."""
    out = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    out += ["| " + " | ".join("" if c is None else str(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def write_csv(path, fields, columns, rows, title=None):
    """A CSV file whose first lines are the header as `# key: value` comments."""
    with open(path, "w", newline="") as f:
        f.write(header_text(fields + ([("table", title)] if title else []), "# "))
        w = csv.writer(f)
        w.writerow(columns)
        w.writerows(rows)


def write_results(out, fields, text, status):
    """results.md and one CSV per markdown table of text; returns the file names."""
    tables = md_tables(text)
    names = (["results.csv"] if len(tables) == 1 else
             [f"results-{n}.csv" for n in range(1, len(tables) + 1)])
    for name, (title, columns, rows) in zip(names, tables):
        write_csv(out / name, fields, columns, rows, title or None)
    index = "".join(f"- {n}: {t or 'table'}\n" for n, (t, _, _) in zip(names, tables))
    (out / "results.md").write_text(
        f"# {fields[0][1]}\n\n" + header_text(fields[1:] + [("result", status)], "- ") +
        "\n" + text.rstrip() + "\n" + (f"\nCSV files:\n\n{index}" if len(names) > 1 else ""))
    return ["results.md"] + names


# ---- running a suite -------------------------------------------------------------

def default_out(name):
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    return ROOT / "build" / "bench-results" / f"{name}-{stamp}"


def suite_out():
    """For a suite: the output folder for its raw files (created), or None when
    it runs outside scripts/bench."""
    out = os.environ.get(OUT_ENV)
    if not out:
        return None
    Path(out).mkdir(parents=True, exist_ok=True)
    return Path(out)


def interpreter(exe):
    first = exe.open().readline()
    return [sys.executable] if "python" in first else ["bash"]


def run_suite(name, args, out):
    """Runs one suite, writes its folder; returns its exit status."""
    exe = SUITES_DIR / name
    fields = header(shlex.join([PROG, name] + args))
    env = dict(os.environ, PYTHONUNBUFFERED="1", PYTHONDONTWRITEBYTECODE="1")
    env[OUT_ENV] = str(out)
    t0 = time.monotonic()
    lines, shown = [], False
    proc = subprocess.Popen(interpreter(exe) + [str(exe)] + args, stdout=subprocess.PIPE,
                            text=True, errors="replace", env=env)
    try:
        for line in proc.stdout:
            if not shown:  # after a usage error there is no output: no header either
                sys.stdout.write(header_text(fields, "") + "\n")
                shown = True
            sys.stdout.write(line)
            sys.stdout.flush()
            lines.append(line)
        rc = proc.wait()
    except KeyboardInterrupt:
        rc = proc.wait()
        lines.append("\n(interrupted)\n")
        rc = rc or 130
    text = "".join(lines)
    if not text.strip() and rc in (0, 2) and (not out.is_dir() or not any(out.iterdir())):
        # a usage error or --build-only: nothing to keep
        if out.is_dir():
            out.rmdir()
        return rc
    out.mkdir(parents=True, exist_ok=True)
    status = f"exit status {rc}, {time.monotonic() - t0:.0f} s"
    names = write_results(out, fields, text, status)
    extra = sorted(p.name for p in out.iterdir() if p.name not in names)
    print(f"\n{PROG} {name}: {status}; results in {out}/ ({', '.join(names + extra)})")
    return rc


def take_out(args):
    """(args without --out DIR, DIR or None, error or None)."""
    rest, out, i = [], None, 0
    while i < len(args):
        a = args[i]
        if a == "--out":
            if i + 1 >= len(args):
                return rest, None, "--out needs a folder"
            out, i = Path(args[i + 1]), i + 2
            continue
        if a.startswith("--out="):
            out = Path(a.split("=", 1)[1])
        else:
            rest.append(a)
        i += 1
    return rest, out, None


ALL_HELP = f"""usage: {PROG} all [--full] [--no-build] [--build-dir DIR] [--suites a,b] [--out DIR]

Runs every suite one after the other, each in its quick form (--quick) unless
--full, with the options below passed to each (--no-build only to the suites
that build). Each suite writes its own folder inside the output folder
(DIR/<suite>/); DIR/results.md and DIR/results.csv list the suites, their
exit status and time. A failing suite does not stop the others; the exit
status is the first non-zero one.

  --full           the suites' default (full) settings instead of --quick
  --no-build       reuse the binaries already built
  --build-dir DIR  one build folder for every suite (default: each its own)
  --suites LIST    a comma-separated subset of: {', '.join(SUITES)}
  --out DIR        output folder (default build/bench-results/all-<YYYYmmdd-HHMMSS>/)"""


def run_all(args, out):
    full, no_build, build_dir, chosen, i = False, False, None, list(SUITES), 0
    while i < len(args):
        a = args[i]
        if a in ("-h", "--help"):
            print(ALL_HELP)
            return 0
        if a == "--full":
            full = True
        elif a == "--no-build":
            no_build = True
        elif a in ("--build-dir", "--suites") and i + 1 < len(args):
            i += 1
            if a == "--build-dir":
                build_dir = args[i]
            else:
                chosen = args[i].split(",")
                bad = [s for s in chosen if s not in SUITES]
                if bad or not chosen:
                    return fail(f"all: unknown suite {','.join(bad)!r}; allowed: "
                                f"{', '.join(SUITES)}")
        else:
            return fail(f"all: unknown option {a!r}; allowed: --full, --no-build, "
                        "--build-dir DIR, --suites LIST, --out DIR (see all --help)")
        i += 1
    out = (out or default_out("all")).resolve()
    fields = header(shlex.join([PROG, "all"] + args))
    print(header_text(fields, ""))
    rows, first_bad = [], 0
    for name in chosen:
        sargs = ([] if full else SUITES[name].quick) + \
            (["--no-build"] if no_build and SUITES[name].builds else []) + \
            (["--build-dir", build_dir] if build_dir else [])
        print(f"\n======== {shlex.join([PROG, name] + sargs)}", flush=True)
        t0 = time.monotonic()
        rc = run_suite(name, sargs, out / name)
        first_bad = first_bad or rc
        rows.append([name, " ".join(sargs), rc, f"{time.monotonic() - t0:.0f}", f"{name}/"])
    text = md_table(["suite", "options", "exit status", "seconds", "folder"], rows)
    print("\n" + text)
    out.mkdir(parents=True, exist_ok=True)
    names = write_results(out, fields, text + "\n", f"exit status {first_bad}")
    print(f"\n{PROG} all: results in {out}/ ({', '.join(names)} and one folder per suite)")
    return first_bad


def main(argv):
    if not argv or all(a in MICRO_COMPAT for a in argv):
        shown = " ".join([PROG, "micro"] + argv)
        print(f"{PROG}: no suite named: running `{shown}` (the bare form goes after one "
              f"release; {PROG} --help lists the suites)", file=sys.stderr)
        argv = ["micro"] + argv
    if argv[0] in ("-h", "--help", "help"):
        print(usage())
        return 0
    name, args = argv[0], argv[1:]
    if name.startswith("-"):
        return fail(f"name a suite before the options ({name!r}); suites: {suite_names()} "
                    f"(see {PROG} --help)")
    if name != "all" and name not in SUITES:
        return fail(f"unknown suite {name!r}; allowed: {suite_names()} (see {PROG} --help)")
    args, out, error = take_out(args)
    if error:
        return fail(error)
    if name == "all":
        return run_all(args, out)
    if "-h" in args or "--help" in args:
        rc = subprocess.call(interpreter(SUITES_DIR / name) + [str(SUITES_DIR / name), "--help"])
        print(f"\n{COMMON_HELP}")
        return rc
    return run_suite(name, args, (out or default_out(name)).resolve())
