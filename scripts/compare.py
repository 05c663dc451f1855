#!/usr/bin/python3
"""rfsim compare: workloads x configurations x variants, one `rfsim run` process per run.

Writes DIR/runs/<config>/<variant>/<workload>/ (rfsim's results folders), DIR/logs/,
DIR/compare.json and DIR/compare.csv, then the report (scripts/report.py). A second
compare into the same DIR skips the runs that are complete. docs/compare.md.

Debian's python3 only (/usr/bin/python3): the standard library, plus tqdm when stdout is a
terminal, so that scripts/setup.sh's packages are all a machine needs.
"""

import argparse
import csv
import datetime
import io
import json
import math
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCHEMA = "rfsim-compare/1"
BASE = "base"

# The back end's instruction roles (ptx::mroleName), for a role vector written as an array.
ROLE_NAMES = ["code", "spill", "fill", "save", "restore", "stack-adjust", "arg-move", "arg-stack"]
# CSV columns that come before the per-run groups (l1d.*, instrs.*, stall.*, energy.*).
LEAD_COLUMNS = ["config", "variant", "workload", "status", "passed", "speedup", "cycles", "clock_mhz",
                "sim_time_us", "warp_instrs", "thread_instrs", "ipc", "rf_reads", "rf_writes",
                "bank_conflicts", "l1d.accesses", "l1d.local"]
TAIL_COLUMNS = ["host_seconds", "run_seconds", "resumed", "returncode", "dir", "error"]
GROUP_PREFIXES = ["l1d.", "instrs.", "stall.", "energy."]


class UsageError(Exception):
    pass


# ---------------------------------------------------------------- arguments

def parse_variant(text):
    """NAME:SPEC -> {"name", "spec", "mechanisms", "overrides"}; SPEC items are +mech or key=value."""
    name, sep, spec = text.partition(":")
    if not sep:
        raise UsageError(f"--variant {text!r}: expected NAME:SPEC (e.g. cars:+cars or big-l1:l1d.size_kb=64)")
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._+-]*", name):
        raise UsageError(f"--variant {text!r}: the name must be letters, digits, '.', '_', '+', '-' "
                         "(it names a folder)")
    if name == BASE:
        raise UsageError(f"--variant {text!r}: '{BASE}' is the baseline, always run; choose another name")
    mechs, overrides = [], []
    for item in (i.strip() for i in spec.split(",")):
        if not item:
            continue
        if item.startswith("+"):
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
            raise UsageError(f"--variant {name}: {item!r} is neither +mechanism nor key=value")
    return {"name": name, "spec": spec, "mechanisms": mechs, "overrides": overrides}


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


def resolve_workloads(spec, known):
    """Names first, then tags ('memory' is every workload tagged memory), then 'all'."""
    names = [n for n, _ in known]
    chosen = []
    for item in (i.strip() for i in spec.split(",")):
        if not item:
            continue
        if item == "all":
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


def parse_args(argv):
    ap = argparse.ArgumentParser(
        prog="rfsim compare",
        description="Run workloads x configurations x variants (one rfsim process each), compare them "
                    "against the baseline and write compare.json, compare.csv and a report (docs/compare.md).")
    ap.add_argument("--rfsim", default=os.path.join(REPO, "build", "rfsim"), help=argparse.SUPPRESS)
    ap.add_argument("-w", "--workloads", required=True,
                    help="workload names or tags, comma-separated (rfsim workloads lists both), or all")
    ap.add_argument("-c", "--configs", default="v100",
                    help="configurations, comma-separated: names (v100, titanv, maxwell) or YAML files "
                         "(default: v100)")
    ap.add_argument("--variant", action="append", default=[], metavar="NAME:SPEC",
                    help="a variant to compare with the baseline; SPEC is comma-separated items, +mech "
                         "(switch a mechanism on) or key=value (a configuration override), e.g. "
                         "cars:+cars or big-l1:l1d.size_kb=64 (repeatable)")
    ap.add_argument("--large", action="store_true", help="the workloads' large input sizes")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1, help="runs at once (default: cores)")
    ap.add_argument("-o", "--out", required=True, help="output folder (a second compare into it resumes)")
    ap.add_argument("--no-report", action="store_true", help="do not write the report")
    ap.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                    help="stop a run that takes longer than this (default: none)")
    args = ap.parse_args(argv)
    if args.jobs < 1:
        ap.error("-j must be at least 1")
    if args.timeout is not None and args.timeout <= 0:
        ap.error("--timeout must be positive")
    return args


# ---------------------------------------------------------------- statistics

def unwrap(node):
    """A statistic is {"value": V, "unit": U, "desc": D}; anything else is itself."""
    if isinstance(node, dict) and "value" in node and ("unit" in node or "desc" in node):
        return node["value"]
    return node


def lookup(node, path):
    """The value at a dotted path, through nested groups (rfsim-stats/2) or flat dotted keys (timing.json)."""
    parts = path.split(".")
    for i in range(len(parts), 0, -1):
        key = ".".join(parts[:i])
        if isinstance(node, dict) and key in node:
            child = node[key]
            if i == len(parts):
                return unwrap(child)
            found = lookup(unwrap(child), ".".join(parts[i:]))
            if found is not None:
                return found
    return None


def number(v):
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    return v if math.isfinite(v) else None


def vector_items(v, names=None):
    """A Vector's elements as (name, number): an object keyed by name, or an array."""
    if isinstance(v, dict):
        return [(str(k), number(x)) for k, x in v.items() if number(x) is not None]
    if isinstance(v, list):
        return [((names[i] if names and len(names) == len(v) else str(i)), number(x))
                for i, x in enumerate(v) if number(x) is not None]
    return []


def vector_sum(v):
    if number(v) is not None:
        return v
    items = vector_items(v)
    return sum(x for _, x in items) if items else None


def numeric_leaves(node, prefix, out, units):
    """Every numeric statistic under a group, as prefix.path -> value (energy: whatever is there)."""
    if isinstance(node, dict) and "value" in node and ("unit" in node or "desc" in node):
        value = node["value"]
        if number(value) is not None:
            out[prefix] = value
            if node.get("unit"):
                units[prefix] = node["unit"]
        elif isinstance(value, (dict, list)):
            for name, x in vector_items(value):
                out[f"{prefix}.{name}"] = x
                if node.get("unit"):
                    units[f"{prefix}.{name}"] = node["unit"]
        return
    if isinstance(node, dict):
        for k, v in node.items():
            if not k.startswith("_"):
                numeric_leaves(v, f"{prefix}.{k}", out, units)
    elif number(node) is not None:
        out[prefix] = node


def clock_mhz(config_yaml):
    """gpu.clock_mhz from a resolved config.yaml, read without a YAML library (one key, two levels)."""
    try:
        with open(config_yaml) as f:
            section = None
            for line in f:
                text = line.split("#", 1)[0].rstrip()
                if not text.strip():
                    continue
                if not text.startswith((" ", "\t")):
                    section = text.strip().rstrip(":")
                elif section == "gpu":
                    key, _, value = text.strip().partition(":")
                    if key == "clock_mhz":
                        return float(value)
    except (OSError, ValueError):
        pass
    return None


def load_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def workload_stats(run_dir, workload):
    """(gpu, energy, summary, passed, detail) of one workload; None where absent."""
    stats = load_json(os.path.join(run_dir, "stats.json"))
    if isinstance(stats, dict) and isinstance(stats.get("workloads"), dict):
        w = stats["workloads"].get(workload)
        if isinstance(w, dict):
            total = w.get("total") if isinstance(w.get("total"), dict) else {}
            gpu = total.get("gpu")
            # Some builds nest the launch's own group ("gpu": {"gpu": {...}}) inside the total.
            if isinstance(gpu, dict) and "cycles" not in gpu and isinstance(gpu.get("gpu"), dict):
                gpu = gpu["gpu"]
            summary = w.get("summary") if isinstance(w.get("summary"), dict) else {}
            passed = w.get("passed")
            if not isinstance(passed, bool) and number(unwrap(summary.get("passed"))) is not None:
                passed = bool(unwrap(summary["passed"]))
            return gpu, total.get("energy"), summary, passed, w.get("detail")
    # Builds before rfsim-stats/2: timing.json holds each workload's flat dotted statistics,
    # checks.json the CPU check.
    timing = load_json(os.path.join(run_dir, "timing.json"))
    gpu = None
    if isinstance(timing, dict) and isinstance(timing.get(workload), dict):
        gpu = timing[workload].get("total")
    checks = load_json(os.path.join(run_dir, "checks.json"))
    check = checks.get(workload) if isinstance(checks, dict) else None
    passed = check.get("passed") if isinstance(check, dict) else None
    detail = check.get("detail") if isinstance(check, dict) else None
    return gpu, None, {}, passed, detail


def extract(run_dir, workload, units):
    """One run's flat metrics (missing statistics are simply absent)."""
    gpu, energy, summary, passed, detail = workload_stats(run_dir, workload)
    m = {}
    if passed is not None:
        m["passed"] = bool(passed)

    def put(key, value):
        if number(value) is not None:
            m[key] = value

    put("cycles", lookup(gpu, "cycles") if gpu is not None else None)
    if "cycles" not in m:
        put("cycles", lookup(summary, "cycles"))
    put("clock_mhz", clock_mhz(os.path.join(run_dir, "config.yaml")))
    if m.get("clock_mhz") and "cycles" in m:
        m["sim_time_us"] = m["cycles"] / m["clock_mhz"]
    for key in ("warp_instrs", "thread_instrs"):
        put(key, lookup(gpu, key) if gpu is not None else None)
        if key not in m:
            put(key, lookup(summary, key))
    if m.get("cycles") and "warp_instrs" in m:
        m["ipc"] = m["warp_instrs"] / m["cycles"]
    if gpu is not None:
        put("rf_reads", vector_sum(lookup(gpu, "sm.rf_reads")))
        put("rf_writes", vector_sum(lookup(gpu, "sm.rf_writes")))
        put("bank_conflicts", vector_sum(lookup(gpu, "sm.bank_conflicts")))
        put("l1d.accesses", vector_sum(lookup(gpu, "l1d.accesses")))
        kinds = vector_items(lookup(gpu, "l1d.accesses_by_kind"))
        for kind, x in kinds:
            m[f"l1d.{kind}"] = x
        if kinds:
            # Local memory is the spills/fills and the call stack.
            m["l1d.local"] = sum(x for k, x in kinds if k.startswith("local"))
        for reason, x in vector_items(lookup(gpu, "sm.stall_cycles")):
            reason = re.sub(r"^s\d+\.", "", reason)  # per scheduler (s0.scoreboard): summed by reason
            reason = "issued" if reason == "none" else reason
            m[f"stall.{reason}"] = m.get(f"stall.{reason}", 0) + x
    for role, x in vector_items(lookup(summary, "warp_instrs_by_role"), ROLE_NAMES):
        m[f"instrs.{role}"] = x
    if energy is not None:
        numeric_leaves(energy, "energy", m, units)
    wall = number(lookup(summary, "wall_time"))
    if wall is not None:
        m["host_seconds"] = wall / 1e6  # microseconds
    return m, detail


# ---------------------------------------------------------------- running

class Runner:
    """Runs the rfsim processes, several at once, and stops them all on SIGTERM/SIGINT."""

    def __init__(self, out, timeout):
        self.out = out
        self.timeout = timeout
        self.lock = threading.Lock()
        self.active = set()
        self.stopping = False

    def stop(self, signum, _frame):
        with self.lock:
            self.stopping = True
            for p in self.active:
                try:
                    os.killpg(p.pid, signal.SIGTERM)
                except OSError:
                    pass
        raise SystemExit(128 + signum)

    def execute(self, run, units):
        final = os.path.join(self.out, run["dir"])
        if os.path.isfile(os.path.join(final, "manifest.json")):
            run["resumed"] = True
            return self.finish(run, final, None, "", units)
        # A run that was stopped leaves <folder>.partial; one that never committed has no manifest.
        shutil.rmtree(final + ".partial", ignore_errors=True)
        cmd = list(run["command"])
        if os.path.exists(final):
            cmd.append("--overwrite")
        os.makedirs(os.path.dirname(final), exist_ok=True)
        log = os.path.join(self.out, run["log"])
        os.makedirs(os.path.dirname(log), exist_ok=True)
        start = time.monotonic()
        with self.lock:
            if self.stopping:
                run["status"] = "not-run"
                return run
            # Its own session, so that a timeout or a stop ends rfsim and anything it starts.
            p = subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True, errors="replace", start_new_session=True)
            self.active.add(p)
        try:
            stdout, stderr = p.communicate(timeout=self.timeout)
            timed_out = False
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            stdout, stderr = p.communicate()
            timed_out = True
        finally:
            with self.lock:
                self.active.discard(p)
        run["run_seconds"] = round(time.monotonic() - start, 3)
        run["returncode"] = p.returncode
        with open(log, "w") as f:
            f.write(f"$ {shlex.join(cmd)}\n{stdout}{stderr}")
        if timed_out:
            run["status"] = "timeout"
            run["error"] = f"stopped after --timeout {self.timeout:g} s"
            return run
        lines = [line.strip() for line in stderr.splitlines() if line.strip()]
        error = lines[-1] if lines else (f"killed by signal {-p.returncode}" if p.returncode < 0
                                         else f"exit status {p.returncode}")
        return self.finish(run, final, p.returncode, error, units)

    def finish(self, run, final, returncode, error, units):
        if not os.path.isfile(os.path.join(final, "manifest.json")):
            run["status"] = "failed"
            run["error"] = error
            return run
        metrics, detail = extract(final, run["workload"], units)
        run["metrics"] = metrics
        failed = (returncode not in (None, 0)) or metrics.get("passed") is False
        run["status"] = "failed" if failed else "complete"
        if failed:
            run["error"] = error or f"CPU check failed: {detail}"
        return run


def plan(args, cwd):
    configs = [config_entry(c.strip(), cwd) for c in args.configs.split(",") if c.strip()]
    if not configs:
        raise UsageError("--configs: no configuration given")
    if len({c["name"] for c in configs}) != len(configs):
        raise UsageError("--configs: two configurations share a name (their folders would collide)")
    variants = [{"name": BASE, "spec": "", "mechanisms": [], "overrides": []}]
    for v in args.variant:
        variant = parse_variant(v)
        if any(x["name"] == variant["name"] for x in variants):
            raise UsageError(f"--variant {variant['name']}: defined twice")
        variants.append(variant)
    workloads = resolve_workloads(args.workloads, list_workloads(args.rfsim))
    runs = []
    # Config, then workload, then variant: a workload's baseline and variants finish together.
    for c in configs:
        for w in workloads:
            for v in variants:
                rel = os.path.join("runs", c["name"], v["name"], w)
                cmd = [args.rfsim, "run", "-q", "--workload", w, "--timing", "--config", c["arg"]]
                if v["mechanisms"]:
                    cmd += ["--mech", ",".join(v["mechanisms"])]
                for o in v["overrides"]:
                    cmd += ["--set", o]
                if args.large:
                    cmd.append("--large")
                cmd += ["--out", os.path.join(args.out, rel)]
                runs.append({"config": c["name"], "variant": v["name"], "workload": w, "dir": rel,
                             "log": os.path.join("logs", c["name"], v["name"], w + ".log"),
                             "command": cmd, "status": "not-run", "resumed": False})
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
                "geomean_speedup": math.exp(sum(math.log(s) for s in sp) / len(sp)) if sp else None,
                "workloads": len(sp),
                "cycles": cycles, "warp_instrs": instrs,
                "ipc": instrs / cycles if cycles else None}
    return summary


def csv_columns(runs):
    keys = set()
    for r in runs:
        keys.update(r.get("metrics", {}))
    groups = []
    for prefix in GROUP_PREFIXES:
        mine = sorted(k for k in keys if k.startswith(prefix) and k not in LEAD_COLUMNS)
        if prefix == "instrs.":
            mine.sort(key=lambda k: (ROLE_NAMES.index(k[7:]) if k[7:] in ROLE_NAMES else 99, k))
        groups += mine
    return LEAD_COLUMNS + groups + TAIL_COLUMNS


def csv_text(runs):
    cols = csv_columns(runs)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(cols)
    for r in runs:
        m = r.get("metrics", {})
        row = []
        for c in cols:
            v = r.get(c) if c in ("config", "variant", "workload", "status", "speedup", "run_seconds",
                                  "resumed", "returncode", "dir", "error") else m.get(c)
            if isinstance(v, bool):
                v = "true" if v else "false"
            row.append("" if v is None else (repr(v) if isinstance(v, float) else str(v)))
        w.writerow(row)
    return buf.getvalue()


def write_atomic(path, text):
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def previous_runs(out):
    """Run records of an earlier compare into the same folder, for the runs it skips now."""
    old = load_json(os.path.join(out, "compare.json"))
    if not isinstance(old, dict) or not isinstance(old.get("runs"), list):
        return {}
    return {(r.get("config"), r.get("variant"), r.get("workload")): r for r in old["runs"] if isinstance(r, dict)}


def main(argv):
    args = parse_args(argv)
    cwd = os.getcwd()
    args.out = os.path.abspath(args.out)
    args.rfsim = os.path.abspath(args.rfsim)
    if not os.access(args.rfsim, os.X_OK):
        raise UsageError(f"{args.rfsim}: no rfsim binary there (build it: scripts/setup.sh)")
    configs, variants, workloads, runs = plan(args, cwd)
    os.makedirs(args.out, exist_ok=True)
    before = previous_runs(args.out)
    units = {}
    runner = Runner(args.out, args.timeout)
    signal.signal(signal.SIGTERM, runner.stop)
    signal.signal(signal.SIGINT, runner.stop)

    started = time.monotonic()
    bar = None
    if sys.stdout.isatty():
        from tqdm import tqdm  # only for a terminal: a pipe or a log gets one summary line
        bar = tqdm(total=len(runs), unit="run", desc="compare", dynamic_ncols=True)
    failures = []
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = [pool.submit(runner.execute, r, units) for r in runs]
        for f in as_completed(futures):
            r = f.result()
            if r["status"] != "complete":
                msg = f"compare: {r['status']}: {r['config']}/{r['variant']}/{r['workload']}: {r.get('error', '')}"
                failures.append(msg)
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
        "rfsim": args.rfsim, "repo": REPO, "out": args.out,
        "workloads": workloads, "configs": configs, "variants": variants,
        "large": args.large, "jobs": args.jobs, "timeout": args.timeout,
        "complete": not incomplete, "incomplete": incomplete,
        "units": units, "summary": summary,
        "runs": [{**{k: v for k, v in r.items() if k != "command"},
                  "command": r["command"], "command_line": shlex.join(r["command"])} for r in runs],
    }
    write_atomic(os.path.join(args.out, "compare.json"), json.dumps(doc, indent=1) + "\n")
    write_atomic(os.path.join(args.out, "compare.csv"), csv_text(runs))

    resumed = sum(r["resumed"] for r in runs)
    print(f"compare: {len(runs)} runs ({len(runs) - resumed} run, {resumed} already complete, "
          f"{len(incomplete)} failed) in {time.monotonic() - started:.1f} s: "
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
        if incomplete:
            cmd.append("--partial")
        if subprocess.run(cmd).returncode != 0:
            rc = 1
    return rc


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except UsageError as e:
        print(f"rfsim compare: error: {e}", file=sys.stderr)
        sys.exit(2)
