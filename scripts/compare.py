#!/usr/bin/python3
"""rfsim compare: workloads x configurations x variants, one `rfsim run` process per run, on this
machine (rfsim_tools/local_engine.py) or as a SLURM job array (rfsim_tools/slurm_engine.py).

Writes DIR/runs/<config>/<variant>/<workload>/ (rfsim's results folders), DIR/logs/,
DIR/compare.json and DIR/compare.csv, then the report (scripts/report.py). A second
compare into the same DIR skips the runs that are complete. docs/compare.md.

Debian's python3 only (/usr/bin/python3): the standard library, plus tqdm when stdout is a
terminal, so that scripts/setup.sh's packages are all a machine needs.
"""

import argparse
import datetime
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor, as_completed

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # rfsim_tools, beside this file

from rfsim_tools.common import BASE, InputError, geomean, read_json, write_atomic  # noqa: E402
from rfsim_tools.csv_table import csv_text  # noqa: E402
from rfsim_tools.folder_lock import FolderBusy, FolderLock  # noqa: E402
from rfsim_tools.in_flight import InFlight  # noqa: E402
from rfsim_tools.local_engine import Runner  # noqa: E402
from rfsim_tools.request import RequestCheck  # noqa: E402
from rfsim_tools import slurm_engine  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCHEMA = "rfsim-compare/1"



class UsageError(Exception):
    pass


# ---------------------------------------------------------------- arguments

def parse_variant(text):
    """NAME:SPEC -> {"name", "spec", "mechanisms", "overrides", "code"}; SPEC items are +mech, key=value
    or @code (rfsim run --code: another compilation of each workload, e.g. @inlined)."""
    name, sep, spec = text.partition(":")
    if not sep:
        raise UsageError(f"--variant {text!r}: expected NAME:SPEC (e.g. cars:+cars or big-l1:l1d.size_kb=64)")
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._+-]*", name):
        raise UsageError(f"--variant {text!r}: the name must be letters, digits, '.', '_', '+', '-' "
                         "(it names a folder)")
    if name == BASE:
        raise UsageError(f"--variant {text!r}: '{BASE}' is the baseline, always run; choose another name")
    mechs, overrides, code = [], [], None
    for item in (i.strip() for i in spec.split(",")):
        if not item:
            continue
        if item.startswith("@"):
            if not re.fullmatch(r"[a-z0-9_-]+", item[1:]):
                raise UsageError(f"--variant {name}: {item!r} is not @code (lower-case letters, digits, '_', '-')")
            if code is not None and code != item[1:]:
                raise UsageError(f"--variant {name}: two codes, @{code} and {item}")
            code = item[1:]
        elif item.startswith("+"):
            mech = item[1:]
            if not re.fullmatch(r"[A-Za-z0-9_]+", mech):
                raise UsageError(f"--variant {name}: {item!r} is not a mechanism name")
            if mech not in mechs:
                mechs.append(mech)
        elif "=" in item:
            key, _, value = item.partition("=")
            if not re.fullmatch(r"[A-Za-z0-9_.]+", key) or value == "":
                raise UsageError(f"--variant {name}: {item!r} is not key=value")
            overrides.append(f"{key}={value}")
        else:
            raise UsageError(f"--variant {name}: {item!r} is neither +mechanism, key=value nor @code")
    return {"name": name, "spec": spec, "mechanisms": mechs, "overrides": overrides, "code": code}


def config_entry(arg, cwd):
    """A configuration: a name rfsim knows (v100), or a YAML file made absolute (runs start in REPO)."""
    if os.path.isfile(arg):
        path = os.path.abspath(os.path.join(cwd, arg))
        label = os.path.splitext(os.path.basename(path))[0]
        return {"name": label, "arg": path}
    if "/" in arg or arg.endswith((".yaml", ".yml")):
        raise UsageError(f"--configs: {arg}: no such file")
    return {"name": arg, "arg": arg}


def list_workloads(rfsim):
    """[(name, tags)] from `rfsim workloads` (lines: name  tags,comma,separated  description)."""
    try:
        out = subprocess.run([rfsim, "workloads"], cwd=REPO, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        raise UsageError(f"cannot list the workloads with {rfsim} workloads: {e}")
    known = []
    for line in out.splitlines():
        fields = line.split()
        if fields:
            known.append((fields[0], set(fields[1].split(",")) if len(fields) > 1 else set()))
    return known


def split_size(item):
    """'saxpy@large' -> ('saxpy', 'large'); 'saxpy' -> ('saxpy', None)."""
    name, at, size = item.partition("@")
    if at and size not in ("small", "large"):
        raise UsageError(f"--workloads: '{item}': the size after @ is small or large")
    return name, (size if at else None)


def resolve_workloads(spec, known):
    """Names first, then tags ('memory' is every workload tagged memory), then 'all'.
    A name may carry its own input size (saxpy@large), which --large does not change."""
    names = [n for n, _ in known]
    chosen = []
    for item in (i.strip() for i in spec.split(",")):
        if not item:
            continue
        name, size = split_size(item)
        if size:
            if name not in names:
                raise UsageError(f"--workloads: '{name}' is not a workload (workloads: {', '.join(names)})")
            hits = [item]
        elif item == "all":
            hits = names
        elif item in names:
            hits = [item]
        else:
            hits = [n for n, tags in known if item in tags]
            if not hits:
                all_tags = sorted(set().union(*(t for _, t in known))) if known else []
                raise UsageError(f"--workloads: '{item}' is neither a workload nor a tag "
                                 f"(workloads: {', '.join(names)}; tags: {', '.join(all_tags)})")
        chosen += [h for h in hits if h not in chosen]
    if not chosen:
        raise UsageError("--workloads: no workload chosen")
    return chosen


def parse_apps(specs, workloads):
    """--app 'NAME: COMMAND' items -> {NAME: argv}, in order."""
    apps = {}
    for text in specs:
        name, sep, command = text.partition(":")
        name = name.strip()
        if not sep or not command.strip():
            raise UsageError(f"--app {text!r}: expected 'NAME: COMMAND', e.g. 'hotspot: ./hotspot 512 2 2 a b c'")
        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._+-]*", name):
            raise UsageError(f"--app {text!r}: the name must be letters, digits, '.', '_', '+', '-' (it names a folder)")
        if name in apps or name in workloads:
            raise UsageError(f"--app {name}: the name is taken by another workload or application")
        try:
            argv = shlex.split(command)
        except ValueError as e:
            raise UsageError(f"--app {name}: {e}")
        apps[name] = argv
    return apps


def parse_args(argv):
    ap = argparse.ArgumentParser(
        prog="rfsim compare",
        description="Run workloads x configurations x variants (one rfsim process each), compare them "
                    "against the baseline and write compare.json, compare.csv and a report (docs/compare.md).")
    ap.add_argument("--rfsim", default=os.path.join(REPO, "build", "rfsim"), help=argparse.SUPPRESS)
    ap.add_argument("-w", "--workloads", "--workload", default="",
                    help="workload names or tags, comma-separated (rfsim workloads lists both), or all; "
                         "NAME@large or NAME@small gives one workload its own input size")
    ap.add_argument("--app", action="append", default=[], metavar="'NAME: COMMAND'",
                    help="an unmodified CUDA application as a workload, run by rfsim exec in the folder "
                         "compare was started from, e.g. --app 'hotspot: ./hotspot 512 2 2 temp.dat power.dat "
                         "out.dat' (repeatable; docs/cudart.md)")
    named = sorted(f[:-5] for f in os.listdir(os.path.join(REPO, "configs")) if f.endswith(".yaml"))
    ap.add_argument("-c", "--configs", "--config", default="v100",
                    help=f"configurations, comma-separated: names ({', '.join(named)}) or YAML files "
                         "(default: v100)")
    ap.add_argument("--variant", action="append", default=[], metavar="NAME:SPEC",
                    help="a variant to compare with the baseline; SPEC is comma-separated items, +mech "
                         "(switch a mechanism on), key=value (a configuration override) or @code (another "
                         "compilation of each workload: rfsim run --code), e.g. cars:+cars, "
                         "big-l1:l1d.size_kb=64 or inlined:@inlined (repeatable)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", dest="sets",
                    help="a configuration override for every run, the baseline's included (repeatable)")
    ap.add_argument("--large", action="store_true", help="the workloads' large input sizes")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1, help="runs at once (default: cores)")
    ap.add_argument("-o", "--out", required=True, help="output folder (a second compare into it resumes)")
    ap.add_argument("--no-report", action="store_true", help="do not write the report")
    ap.add_argument("-q", "--quiet", action="store_true",
                    help="no progress bar and no step lines on a terminal (a pipe or a log never gets them)")
    ap.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                    help="stop a run that takes longer than this (default: none)")
    ap.add_argument("--figures", metavar="SCRIPT",
                    help="a figure script, a path in the repository (e.g. scripts/cars_figures.py), run on the "
                         "folder after the report as SCRIPT DIR --rfsim RFSIM")
    ap.add_argument("--dry-run", action="store_true", help="print each run's command and write nothing")
    ap.add_argument("--no-rerun", action="store_true",
                    help="when a complete run in the folder was asked something else (another variant definition, "
                         "size, configuration or rfsim version), list the differences and stop instead of running "
                         "it again")
    slurm = ap.add_argument_group("the runs on a SLURM cluster, one job array (--engine slurm; docs/sweep.md)")
    slurm.add_argument("--engine", choices=("local", "slurm"), default="local",
                       help="where the runs run: local (this machine, -j at once) or slurm (sbatch)")
    slurm.add_argument("--partition", help="the array's partition (sbatch --partition)")
    slurm.add_argument("--time", help="each task's time limit (sbatch --time, e.g. 30 or 1:00:00)")
    slurm.add_argument("--mem", help="each task's memory (sbatch --mem, e.g. 4G)")
    slurm.add_argument("--max-parallel", type=int, metavar="N", help="tasks running at once (the array's %%N)")
    slurm.add_argument("--runs-per-task", type=int, default=1, metavar="N",
                       help="runs one task makes, one after the other: fewer tasks for many short runs (default 1)")
    slurm.add_argument("--sbatch-arg", action="append", default=[], metavar="ARG",
                       help="one more sbatch argument, e.g. --sbatch-arg=--account=gpu-lab (repeatable)")
    slurm.add_argument("--detach", action="store_true",
                       help="return once the array is submitted; rfsim compare --collect DIR finishes")
    # The experiment file rfsim compare --experiment expanded into these arguments (for the record).
    ap.add_argument("--from-experiment", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    args.collect = None
    if args.engine == "local" and (args.partition or args.time or args.mem or args.max_parallel or args.sbatch_arg
                                   or args.detach or args.runs_per_task != 1):
        ap.error("--partition, --time, --mem, --max-parallel, --runs-per-task, --sbatch-arg and --detach need "
                 "--engine slurm")
    if (args.max_parallel is not None and args.max_parallel < 1) or args.runs_per_task < 1:
        ap.error("--max-parallel and --runs-per-task must be at least 1")
    if not args.workloads and not args.app:
        ap.error("which workloads? -w NAMES and/or --app 'NAME: COMMAND'")
    if args.jobs < 1:
        ap.error("-j must be at least 1")
    for o in args.sets:
        if "=" not in o:
            ap.error(f"--set {o!r}: expected KEY=VALUE")
    if args.timeout is not None and args.timeout <= 0:
        ap.error("--timeout must be positive")
    return args


# ---------------------------------------------------------------- running

def plan(args, cwd):
    configs = [config_entry(c.strip(), cwd) for c in args.configs.split(",") if c.strip()]
    if not configs:
        raise UsageError("--configs: no configuration given")
    if len({c["name"] for c in configs}) != len(configs):
        raise UsageError("--configs: two configurations share a name (their folders would collide)")
    variants = [{"name": BASE, "spec": "", "mechanisms": [], "overrides": [], "code": None}]
    for v in args.variant:
        variant = parse_variant(v)
        if any(x["name"] == variant["name"] for x in variants):
            raise UsageError(f"--variant {variant['name']}: defined twice")
        variants.append(variant)
    workloads = resolve_workloads(args.workloads, list_workloads(args.rfsim)) if args.workloads else []
    apps = parse_apps(args.app, workloads)
    workloads += list(apps)
    runs = []
    # Config, then workload, then variant: a workload's baseline and variants finish together.
    for c in configs:
        for w in workloads:
            for v in variants:
                rel = os.path.join("runs", c["name"], v["name"], w)
                if w in apps:
                    if v.get("code"):
                        raise UsageError(f"--variant {v['name']}: @{v['code']} (another compilation) does not apply "
                                         f"to the application {w}")
                    cmd = [args.rfsim, "exec", "-q", "--timing", "--config", c["arg"], "--name", w]
                    for o in args.sets:
                        cmd += ["--set", o]
                    if v["mechanisms"]:
                        cmd += ["--mech", ",".join(v["mechanisms"])]
                    for o in v["overrides"]:
                        cmd += ["--set", o]
                    cmd += ["--out", os.path.join(args.out, rel), "--"] + apps[w]
                    asked = {"config": c["arg"], "sets": args.sets + v["overrides"], "mech": ",".join(v["mechanisms"]),
                             "argv": apps[w], "timing": True}
                    runs.append({"config": c["name"], "variant": v["name"], "workload": w, "dir": rel,
                                 "log": os.path.join("logs", c["name"], v["name"], w + ".log"),
                                 "command": cmd, "cwd": cwd, "asked": asked, "status": "not-run", "resumed": False})
                    continue
                name, size = split_size(w)
                cmd = [args.rfsim, "run", "-q", "--workload", name, "--timing", "--config", c["arg"]]
                for o in args.sets:
                    cmd += ["--set", o]
                if v["mechanisms"]:
                    cmd += ["--mech", ",".join(v["mechanisms"])]
                for o in v["overrides"]:
                    cmd += ["--set", o]
                if v.get("code"):
                    cmd += ["--code", v["code"]]
                large = size == "large" or (size is None and args.large)
                if large:
                    cmd.append("--large")
                cmd += ["--out", os.path.join(args.out, rel)]
                asked = {"config": c["arg"], "sets": args.sets + v["overrides"], "mech": ",".join(v["mechanisms"]),
                         "workloads": [name], "size": "large" if large else "small", "code": v.get("code") or "",
                         "timing": True}
                runs.append({"config": c["name"], "variant": v["name"], "workload": w, "dir": rel,
                             "log": os.path.join("logs", c["name"], v["name"], w + ".log"),
                             "command": cmd, "asked": asked, "status": "not-run", "resumed": False})
    return configs, variants, workloads, runs


# ---------------------------------------------------------------- results

def add_speedups(runs, variants, configs):
    """speedup = base cycles / variant cycles, per workload; geometric mean per config and variant."""
    base = {(r["config"], r["workload"]): r.get("metrics", {}).get("cycles")
            for r in runs if r["variant"] == BASE and r["status"] == "complete"}
    for r in runs:
        b = base.get((r["config"], r["workload"]))
        c = r.get("metrics", {}).get("cycles")
        if r["status"] == "complete" and b and c:
            r["speedup"] = b / c
    summary = {}
    for c in configs:
        summary[c["name"]] = {}
        for v in variants:
            mine = [r for r in runs if r["config"] == c["name"] and r["variant"] == v["name"]]
            sp = [r["speedup"] for r in mine if r.get("speedup")]
            done = [r["metrics"] for r in mine if r["status"] == "complete"]
            cycles = sum(m.get("cycles", 0) for m in done)
            instrs = sum(m.get("warp_instrs", 0) for m in done)
            summary[c["name"]][v["name"]] = {
                "geomean_speedup": geomean(sp),
                "workloads": len(sp),
                "cycles": cycles, "warp_instrs": instrs,
                "ipc": instrs / cycles if cycles else None}
    return summary


def previous_runs(out):
    """Run records of an earlier compare into the same folder, for the runs it skips now."""
    try:
        old = read_json(os.path.join(out, "compare.json"))
    except InputError:
        return {}
    if not isinstance(old, dict) or not isinstance(old.get("runs"), list):
        return {}
    return {(r.get("config"), r.get("variant"), r.get("workload")): r for r in old["runs"] if isinstance(r, dict)}


def collect_args(argv):
    """--collect DIR: the arguments of the compare that submitted DIR's pending SLURM job."""
    ap = argparse.ArgumentParser(prog="rfsim compare --collect")
    ap.add_argument("--collect", required=True, metavar="DIR")
    ap.add_argument("--rfsim", default=None)
    ap.add_argument("-q", "--quiet", action="store_true")
    opts = ap.parse_args(argv)
    path = os.path.join(os.path.abspath(opts.collect), slurm_engine.PENDING)
    try:
        job = read_json(path, "no SLURM job was submitted into this folder, or it is collected already")
    except InputError as e:
        raise UsageError(str(e))
    os.chdir(job["cwd"])
    args = parse_args(job["argv"])
    args.collect, args.detach, args.quiet = job, False, args.quiet or opts.quiet
    return args, job["argv"]


def main(argv):
    args, argv = collect_args(argv) if "--collect" in argv else (parse_args(argv), argv)
    cwd = os.getcwd()
    args.out = os.path.abspath(args.out)
    args.rfsim = os.path.abspath(args.rfsim)
    if not os.access(args.rfsim, os.X_OK):
        raise UsageError(f"{args.rfsim}: no rfsim binary there (build it: scripts/setup.sh)")
    configs, variants, workloads, runs = plan(args, cwd)
    if args.dry_run:
        for r in runs:
            print(shlex.join(r["command"]))
        return 0
    if args.figures and not os.path.isfile(os.path.join(REPO, args.figures)):
        raise UsageError(f"--figures {args.figures}: no such script in {REPO}")
    # One compare (or rfsim run) at a time in a folder; a second one stops here, having touched nothing.
    lock = FolderLock(args.out)
    try:
        lock.acquire()
    except FolderBusy as e:
        print(f"rfsim compare: error: {e}", file=sys.stderr)
        return 1
    try:
        if not args.collect:
            slurm_engine.check_pending(args.out, False)  # no second writer while a SLURM job writes
        return run_all(args, argv, cwd, configs, variants, workloads, runs)
    finally:
        lock.release()


def check_reuse(args, cwd, runs):
    """Marks the complete runs in the folder that were asked something else to run again, and says so
    (one line per configuration, variant and reason). Returns the lines; with --no-rerun, main() stops."""
    check = RequestCheck(args.rfsim, cwd)
    why = {}  # (config, variant, reason) -> workloads
    for r in runs:
        final = os.path.join(args.out, r["dir"])
        if not os.path.isfile(os.path.join(final, "manifest.json")):
            continue
        try:
            reasons, request = check.differences(r["asked"], final)
        except InputError as e:
            raise UsageError(str(e))
        if not reasons:
            r["request"] = request
        else:
            r["rerun"] = reasons
            why.setdefault((r["config"], r["variant"], "; ".join(reasons)), []).append(r["workload"])
    lines = []
    for (c, v, reason), ws in why.items():
        names = ", ".join(ws[:4]) + (f" and {len(ws) - 4} more" if len(ws) > 4 else "")
        lines.append(f"{c}/{v} ({len(ws)} run{'s' if len(ws) > 1 else ''}: {names}): {reason}")
    return lines


def run_all(args, argv, cwd, configs, variants, workloads, runs):
    os.makedirs(args.out, exist_ok=True)
    units = {}
    runner = Runner(args.out, args.timeout)
    signal.signal(signal.SIGTERM, runner.stop)
    signal.signal(signal.SIGINT, runner.stop)
    differ = check_reuse(args, cwd, runs)
    if differ and args.no_rerun:
        for line in differ:
            print(f"compare: differs: {line}", file=sys.stderr)
        n = sum(bool(r.get("rerun")) for r in runs)
        print(f"rfsim compare: error: {n} complete run{'s' if n > 1 else ''} in {args.out} were asked something "
              "else (listed above); with --no-rerun nothing runs: run without it to run them again, or choose "
              "another --out", file=sys.stderr)
        return 1
    for line in differ:
        print(f"compare: run again: {line}", file=sys.stderr)
    before = previous_runs(args.out)

    started = time.monotonic()
    bar = None
    steps = sys.stdout.isatty() and not args.quiet  # a pipe or a log gets one summary line
    if steps:
        from tqdm import tqdm
        bar = tqdm(total=len(runs), unit="run", desc="compare", dynamic_ncols=True)
    job = None
    if args.engine == "slurm":
        job, rc = slurm_engine.run(args, argv, cwd, runs, runner, units, bar)
        if rc is not None:
            if bar:
                bar.close()
            return rc  # detached, or stopped while the job goes on
    else:
        with ThreadPoolExecutor(max_workers=args.jobs) as pool:
            flight = InFlight(bar)
            futures = [pool.submit(flight.execute, runner, r, units) for r in runs]
            for f in as_completed(futures):
                r = f.result()
                if r["status"] != "complete" and not (runner.signum and r["status"] in ("not-run", "interrupted")):
                    msg = f"compare: {r['status']}: {r['config']}/{r['variant']}/{r['workload']}: {r.get('error', '')}"
                    if bar:
                        bar.write(msg, file=sys.stderr)
                    else:
                        print(msg, file=sys.stderr)
                if bar:
                    bar.update(1)
    if bar:
        bar.close()
    for r in runs:
        if r["resumed"]:
            old = before.get((r["config"], r["variant"], r["workload"]), {})
            for key in ("run_seconds", "returncode"):
                if key in old and key not in r:
                    r[key] = old[key]

    summary = add_speedups(runs, variants, configs)
    incomplete = [f"{r['config']}/{r['variant']}/{r['workload']}" for r in runs if r["status"] != "complete"]
    doc = {
        "schema": SCHEMA,
        "created": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "command": ["rfsim", "compare"] + list(argv),
        "rfsim": args.rfsim, "repo": REPO, "out": args.out, "experiment": args.from_experiment,
        "workloads": workloads, "configs": configs, "variants": variants,
        "large": args.large, "jobs": args.jobs, "timeout": args.timeout,
        "complete": not incomplete, "incomplete": incomplete,
        "units": units, "summary": summary,
        **({"engine": "slurm", "slurm": slurm_engine.record(job)} if job else {}),
        "runs": [{**{k: v for k, v in r.items() if k not in ("command", "asked")},
                  "command": r["command"], "command_line": shlex.join(r["command"])} for r in runs],
    }
    write_atomic(os.path.join(args.out, "compare.json"), json.dumps(doc, indent=1) + "\n")
    if job:
        slurm_engine.collected(args.out, job)
    write_atomic(os.path.join(args.out, "compare.csv"), csv_text(runs))

    resumed = sum(r["resumed"] for r in runs)
    again = sum(bool(r.get("rerun")) and r["status"] not in ("not-run",) for r in runs)
    if runner.signum:
        name = signal.Signals(runner.signum).name
        print(f"compare: stopped by {name}: {len(runs) - len(incomplete)} of {len(runs)} runs complete, the others "
              f"marked in compare.json (the same command finishes them): {os.path.join(args.out, 'compare.json')}",
              file=sys.stderr)
        return 128 + runner.signum
    print(f"compare: {len(runs)} runs ({len(runs) - resumed} run" + (f", {again} of them again" if again else "") +
          f", {resumed} already complete, {len(incomplete)} failed) in {time.monotonic() - started:.1f} s: "
          f"{os.path.join(args.out, 'compare.json')}")
    for c in configs:
        parts = [f"{v['name']} {summary[c['name']][v['name']]['geomean_speedup']:.3f}"
                 for v in variants[1:] if summary[c["name"]][v["name"]]["geomean_speedup"]]
        if parts:
            print(f"compare: {c['name']}: geometric-mean speedup over {BASE}: {', '.join(parts)}")
    rc = 1 if incomplete else 0
    if not args.no_report:
        # With failed runs the report still shows the complete ones and names the others.
        cmd = [sys.executable, os.path.join(REPO, "scripts", "report.py"), args.out]
        if steps:
            print("compare: writing the report (scripts/report.py)", flush=True)
        if incomplete:
            cmd.append("--partial")
        if subprocess.run(cmd).returncode != 0:
            rc = 1
    if args.figures:
        # The paper's figures: every figure script reads compare.json and the runs' stats.json,
        # and lists the runs that are missing or failed.
        cmd = [sys.executable, os.path.join(REPO, args.figures), args.out, "--rfsim", args.rfsim]
        if steps:
            print(f"compare: the paper's figures: {args.figures}", flush=True)
        if subprocess.run(cmd).returncode != 0:
            rc = 1
    return 128 + runner.signum if runner.signum else rc  # stopped while the report was written


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except UsageError as e:
        print(f"rfsim compare: error: {e}", file=sys.stderr)
        sys.exit(2)
    except slurm_engine.SlurmError as e:
        print(f"rfsim compare: error: {e}", file=sys.stderr)
        sys.exit(1)
