#!/usr/bin/python3
"""Whole kernels, model against hardware (docs/calibration.md): every workload of an rfsim-hw
JSON (docs/hardware.md) run on the model, each kernel's cycles with each launch's fixed cost
(gpu.cycles_with_launch, as the GPU's event times include it) set against the GPU's kernel time
converted to cycles at the SM clock, with Pearson r, the mean absolute percentage error, a
log-log scatter plot and the worst kernels with a diagnosis from the model's statistics; and
the relative change of inlining the calls suite (or any --relative pair), model ratio against
hardware ratio.

Usage: scripts/correlate.py [options]

  --hw FILE         rfsim-hw --json of every workload (default docs/hw/h100/all-small.json);
                    its size (small/large) is the model's input size
  --calls FILE      an rfsim-hw --json of the calls suite, separately compiled; its
                    FILE-inlined.json beside it is the inlined run (repeatable; default: the
                    calls-<size>-<N>sm.json files beside --hw). Each runs on the model with the
                    SM count the GPU ran it on (the JSON's "sms")
  --no-calls        no inlining comparison
  --relative NAME=BASE,VARIANT[,OPTION...]
                    a relative change, kernel by kernel: the GPU's cycles in rfsim-hw file BASE
                    against VARIANT (both read as --gpu-cycles says), the model's run against the
                    same run with the rfsim run OPTIONs (e.g. --maxrregcount=32, --code=inlined);
                    each kernel's speedup (base cycles / variant cycles), model against GPU
                    (repeatable; on the --hw workloads' SMs)
  -c, --config C    model configuration (default h100)
  --sms N           run the --hw workloads on N SMs of the model (a subset: only kernels whose
                    grids fit N SMs as they fit the GPU's compare like for like)
  -w, --workloads W,...   only these workloads;  --skip W,...  all but these
  -o, --out DIR     results (default results/correlate-<config>-<size>); a second run into the
                    same DIR reuses every finished model run made with the same request
                    (--rerun: run them all again, e.g. after the model changed)
  --no-run          read the runs already in DIR, run nothing (missing ones are listed)
  -j, --jobs N      model runs at a time (default 1)
  --timeout S       stop a model run after S seconds and leave its workload out (default none)
  --clock-mhz F     SM clock for the hardware's ms -> cycles (default: the configuration's
                    gpu.clock_mhz, which for h100 is the clock the GPU ran at)
  --gpu-cycles ncu  the GPU's cycles are Nsight Compute's (--hw is then scripts/ncu_kernels.py's
                    JSON): each kernel's sm__cycles_elapsed.max summed over its launches, and its
                    time gpu__time_duration, instead of event times x the clock
  --set KEY=VALUE   a configuration override for every model run (repeatable), e.g. the H200's
                    memory on the h100 configuration (docs/calibration.md)
  --rfsim PATH      the rfsim binary (default build/rfsim)

Writes DIR/correlation.json (every kernel and figure), DIR/correlation.png (the scatter plot)
and DIR/correlation.md (the tables, also printed). Exit status 1 if a model run failed.
"""
import argparse
import glob
import json
import math
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # rfsim_tools, beside this file

from rfsim_tools.common import InputError, geomean, read_json, write_atomic  # noqa: E402
from rfsim_tools.stats import config_number, lookup, read_config, vector_items  # noqa: E402

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORST = 10
DRAM_BOUND = 0.5        # DRAM bandwidth utilisation from which a kernel is called DRAM-bound
NEUTRAL = 0.02          # a ratio within 2 % of 1 is "no change" for the sign test
RATIO_TOLERANCE = 0.15  # model ratio within +-15 % of the hardware ratio


# ---------------------------------------------------------------- the maths

def ms_to_cycles(ms, clock_mhz):
    """Milliseconds at clock_mhz MHz as cycles (1 ms = clock_mhz * 1000 cycles)."""
    return ms * clock_mhz * 1000.0


def pearson(xs, ys):
    """Pearson's correlation coefficient of two equal-length sequences; None when undefined."""
    n = len(xs)
    if n != len(ys) or n < 2:
        return None
    mx, my = sum(xs) / n, sum(ys) / n
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    if sxx == 0 or syy == 0:
        return None
    return sxy / math.sqrt(sxx * syy)


def mape(model, hw):
    """Mean absolute percentage error of model against hw (in %), hw > 0."""
    if not hw or len(model) != len(hw):
        return None
    return 100.0 * sum(abs(m - h) / h for m, h in zip(model, hw)) / len(hw)


def figures(pairs):
    """r (linear and log10), MAPE and the geomean of model / hw over [(model, hw)] with both > 0."""
    ok = [(m, h) for m, h in pairs if m > 0 and h > 0]
    ms, hs = [m for m, _ in ok], [h for _, h in ok]
    return {"kernels": len(ok),
            "pearson_r": pearson(ms, hs),
            "pearson_r_log": pearson([math.log10(m) for m in ms], [math.log10(h) for h in hs]),
            "mape_pct": mape(ms, hs),
            "geomean_ratio": geomean([m / h for m, h in ok])}


def ratio_check(model_ratio, hw_ratio):
    """(same sign, within tolerance) of a model speedup ratio against the hardware's."""
    def side(x):
        return 0 if abs(x - 1.0) <= NEUTRAL else (1 if x > 1 else -1)
    same = side(model_ratio) == side(hw_ratio)
    return same, abs(model_ratio / hw_ratio - 1.0) <= RATIO_TOLERANCE


# ---------------------------------------------------------------- model runs

class Run:
    """One `rfsim run --timing` of one workload into its own folder."""

    def __init__(self, out, tag, workload, size, config, sets, code, max_regs=0):
        self.workload, self.size, self.config, self.sets, self.code = workload, size, config, sets, code
        self.max_regs = max_regs
        self.dir = os.path.join(out, "runs", tag, workload)
        self.error, self.seconds = None, None

    def command(self, rfsim):
        cmd = [rfsim, "run", "-q", "--config", self.config, "--workload", self.workload, "--timing",
               "--out", self.dir, "--overwrite"]
        if self.size == "large":
            cmd.append("--large")
        if self.code:
            cmd += ["--code", self.code]
        if self.max_regs:
            cmd += ["--maxrregcount", str(self.max_regs)]
        for s in self.sets:
            cmd += ["--set", s]
        return cmd

    def finished(self, resolved=None):
        """The folder holds a complete run of this same request and, when `resolved` is given
        (`rfsim config`'s text for it), of the same resolved configuration."""
        try:
            req = read_json(os.path.join(self.dir, "stats.json"))["run"]["request"]
            with open(os.path.join(self.dir, "config.yaml"), encoding="utf-8") as f:
                config_text = f.read()
        except (InputError, OSError, KeyError, TypeError):
            return False
        return (req.get("config") == self.config and req.get("sets") == self.sets
                and req.get("size") == self.size and req.get("code", "") == self.code
                and req.get("max_regs", 0) == self.max_regs
                and req.get("workloads") == [self.workload] and req.get("timing") is True
                and (resolved is None or resolved == config_text))

    def execute(self, rfsim, timeout):
        os.makedirs(os.path.dirname(self.dir), exist_ok=True)
        t0 = time.monotonic()
        try:
            p = subprocess.run(self.command(rfsim), cwd=HERE, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            self.error = f"stopped after {timeout} s (--timeout)"
            return
        self.seconds = time.monotonic() - t0
        print(f"correlate: {self.dir}: {self.seconds:.0f} s", file=sys.stderr)
        if p.returncode != 0:
            tail = (p.stderr or p.stdout).strip().splitlines()[-3:]
            self.error = f"rfsim exit {p.returncode}: " + " | ".join(tail)

    def stats(self):
        doc = read_json(os.path.join(self.dir, "stats.json"))
        return doc["workloads"][self.workload]


def resolved_config(rfsim, config, sets):
    """`rfsim config`'s text for a configuration and its --set overrides (what a run writes as
    its config.yaml), None without a usable rfsim."""
    cmd = [rfsim, "config", "-c", config] + [x for s in sets for x in ("--set", s)]
    try:
        p = subprocess.run(cmd, cwd=HERE, capture_output=True, text=True)
    except OSError:
        return None
    return p.stdout if p.returncode == 0 else None


def run_all(runs, args):
    resolved = {}
    for r in runs:
        key = (r.config, tuple(r.sets))
        if key not in resolved:
            resolved[key] = resolved_config(args.rfsim, r.config, r.sets)
    todo = [r for r in runs if args.rerun or not r.finished(resolved[(r.config, tuple(r.sets))])]
    if args.no_run:
        for r in todo:
            r.error = "not run (--no-run) and no finished run in the folder"
        return
    for i, r in enumerate(todo):
        print(f"correlate: model run {i + 1}/{len(todo)} queued: {r.dir}", file=sys.stderr)
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for r in todo:
            pool.submit(r.execute, args.rfsim, args.timeout)


# ---------------------------------------------------------------- a kernel's statistics

def stall_shares(gpu):
    """{reason: share of the schedulers' cycles} from sm.issue.stall_cycles (summed over schedulers)."""
    out = {}
    for key, x in vector_items(lookup(gpu, "sm.issue.stall_cycles")):
        reason = key.split(".", 1)[-1]
        reason = "issued" if reason == "none" else reason
        out[reason] = out.get(reason, 0) + x
    total = sum(out.values())
    return {k: v / total for k, v in out.items()} if total else {}


def launch_cycles(ln):
    """A launch's cycles as events around it would time them: its cycles from the first block to
    the last plus the launch's fixed cost (gpu.cycles_with_launch, gpu.launch_overhead_ns); a
    run without that statistic gives its cycles alone."""
    with_launch = lookup(ln.get("gpu") or {}, "cycles_with_launch")
    return ln["cycles"] if with_launch is None else with_launch


def kernel_model(launches):
    """{kernel: summed model statistics} over the launches of a workload: `cycles` with each
    launch's fixed cost, `kernel_cycles` without it (first block to last)."""
    out = {}
    for ln in launches:
        k = out.setdefault(ln["kernel"], {"cycles": 0, "kernel_cycles": 0, "launches": 0, "warp_instrs": 0,
                                          "blocks": 0, "stalls": {}, "dram_util_x_cycles": 0.0, "l1d_local": 0,
                                          "l1d_accesses": 0, "l1i_misses": 0, "dram_bytes": 0})
        gpu = ln["gpu"]
        cycles = ln["cycles"]  # the shares and utilisations below are of the kernel's own cycles
        k["cycles"] += launch_cycles(ln)
        k["kernel_cycles"] += cycles
        k["launches"] += 1
        k["warp_instrs"] += lookup(gpu, "warp_instrs") or 0
        k["blocks"] += lookup(gpu, "blocks") or 0
        k["num_sms"] = lookup(gpu, "num_sms")
        for reason, share in stall_shares(gpu).items():
            k["stalls"][reason] = k["stalls"].get(reason, 0) + share * cycles
        k["dram_util_x_cycles"] += (lookup(gpu, "mem.dram.bandwidth_utilisation") or 0) * cycles
        k["dram_bytes"] += (lookup(gpu, "mem.dram.read_bytes") or 0) + (lookup(gpu, "mem.dram.write_bytes") or 0)
        kinds = dict(vector_items(lookup(gpu, "l1d.accesses_by_kind")))
        k["l1d_local"] += sum(x for name, x in kinds.items() if name.startswith("local"))
        k["l1d_accesses"] += lookup(gpu, "l1d.accesses") or 0
        k["l1i_misses"] += lookup(gpu, "sm.fetch.l1i_misses") or 0
    for k in out.values():
        c = k["kernel_cycles"] or 1
        k["stalls"] = {r: v / c for r, v in k["stalls"].items()}
        k["dram_util"] = k.pop("dram_util_x_cycles") / c
    return out


def us_per_launch(row):
    return row["hw_ms"] * 1000.0 / max(1, row["hw_launches"] or 1)


def launch_floor(hw):
    """The shortest time per launch of any kernel in an rfsim-hw file (us): what the GPU's event
    timing gives a launch that does almost nothing (configs/h100.yaml's gpu.launch_overhead_ns)."""
    xs = [k["ms_median"] * 1000.0 / max(1, k.get("launches") or 1)
          for e in hw.values() if e.get("passed") for k in (e.get("kernels") or {}).values()]
    return min(xs) if xs else 0.0


def diagnose(row, clock_mhz, floor_us):
    """What the model's statistics (and the GPU's launch time) say about a kernel's error."""
    notes = []
    m = row["model"]
    hw_us = us_per_launch(row)
    n = max(1, m["launches"])
    kernel_us = m["kernel_cycles"] / n / clock_mhz
    launch_us = (m["cycles"] - m["kernel_cycles"]) / n / clock_mhz
    if hw_us <= 2 * floor_us and kernel_us < max(floor_us, launch_us):
        model = (f"{launch_us:.1f} + {kernel_us:.1f} in the model (launch cost + kernel)" if launch_us
                 else f"{kernel_us:.1f} in the model, which has no launch cost")
        notes.append(f"launch-overhead-bound: {hw_us:.1f} us per launch on the GPU (its floor: {floor_us:.1f}), "
                     + model)
    if m["dram_util"] >= DRAM_BOUND:
        notes.append(f"DRAM-bound in the model ({100 * m['dram_util']:.0f} % of its peak); its DRAM bytes in the "
                     f"GPU's time: {m['dram_bytes'] / (row['hw_ms'] * 1e-3) / 1e12:.2f} TB/s")
    sms = m.get("num_sms") or 0
    per_launch_blocks = m["blocks"] / max(1, m["launches"])
    if sms and per_launch_blocks < sms:
        notes.append(f"under-filled: {per_launch_blocks:.0f} blocks per launch on {sms} SMs")
    stalls = {r: s for r, s in m["stalls"].items() if r != "issued"}
    if stalls:
        r, s = max(stalls.items(), key=lambda kv: kv[1])
        notes.append(f"dominant stall {r} ({100 * s:.0f} %, issuing {100 * m['stalls'].get('issued', 0):.0f} %)")
    if m["l1d_accesses"] and m["l1d_local"] / m["l1d_accesses"] >= 0.3:
        notes.append(f"local memory {100 * m['l1d_local'] / m['l1d_accesses']:.0f} % of L1D accesses")
    if m["warp_instrs"] and 1000.0 * m["l1i_misses"] / m["warp_instrs"] >= 20:
        notes.append(f"{1000.0 * m['l1i_misses'] / m['warp_instrs']:.0f} L1I misses per 1000 warp instructions")
    return "; ".join(notes)


# ---------------------------------------------------------------- hardware against model

def hw_entries(path):
    doc = read_json(path)
    if not isinstance(doc, list):
        raise InputError(f"{path}: not an rfsim-hw --json list")
    return {e["workload"]: e for e in doc if isinstance(e, dict) and "workload" in e}


def ncu_entries(hw):
    """rfsim-hw entries whose kernels' times and cycles are Nsight Compute's (ncu_kernels.py):
    ms_median and launches from it, and the GPU's cycles as it counted them."""
    out = {}
    for w, e in hw.items():
        kernels = {name: {"ms_median": k["ncu"]["ns"] / 1e6, "launches": k["ncu"]["launches"],
                          "cycles": k["ncu"]["cycles"]}
                   for name, k in (e.get("kernels") or {}).items() if "ncu" in k}
        if kernels:
            out[w] = dict(e, kernels=kernels, kernel_ms_median=sum(k["ms_median"] for k in kernels.values()))
    return out


def kernel_rows(hw, runs, clock_mhz):
    """Per kernel of every workload that ran and passed on both: model and hardware cycles."""
    rows, notes = [], []
    floor_us = launch_floor(hw)
    for r in runs:
        e = hw.get(r.workload)
        if r.error:
            notes.append(f"{r.workload}: {r.error}")
            continue
        if not e or not e.get("passed"):
            notes.append(f"{r.workload}: the GPU's run did not pass; left out")
            continue
        w = r.stats()
        if not w.get("passed"):
            notes.append(f"{r.workload}: the model's run did not pass its check; left out")
            continue
        model = kernel_model(w.get("launches", []))
        for name, k in sorted((e.get("kernels") or {}).items()):
            if name not in model:
                notes.append(f"{r.workload}/{name}: no launch of it in the model")
                continue
            m = model[name]
            if m["launches"] != k.get("launches"):
                notes.append(f"{r.workload}/{name}: {m['launches']} launches in the model, {k.get('launches')} on the GPU")
            hw_cycles = k["cycles"] if "cycles" in k else ms_to_cycles(k["ms_median"], clock_mhz)
            row = {"workload": r.workload, "kernel": name, "hw_ms": k["ms_median"], "hw_launches": k.get("launches"),
                   "hw_cycles": hw_cycles, "model_cycles": m["cycles"],
                   "model_kernel_cycles": m["kernel_cycles"], "model": m}
            row["error_pct"] = 100.0 * (row["model_cycles"] - row["hw_cycles"]) / row["hw_cycles"]
            row["hw_us_per_launch"] = us_per_launch(row)
            row["diagnosis"] = diagnose(row, clock_mhz, floor_us)
            rows.append(row)
    return rows, notes


def worst(rows, n=WORST):
    """The n kernels furthest from the hardware, by |log(model / hw)| (over and under alike)."""
    ok = [r for r in rows if r["model_cycles"] > 0 and r["hw_cycles"] > 0]
    return sorted(ok, key=lambda r: -abs(math.log(r["model_cycles"] / r["hw_cycles"])))[:n]


def inlining_rows(pairs, clock_mhz):
    """Per workload of the calls suite: speedup of inlining, model (cycles) against GPU (time)."""
    rows = []
    for label, hw_base, hw_inl, base_runs, inl_runs in pairs:
        for rb, ri in zip(base_runs, inl_runs):
            eb, ei = hw_base.get(rb.workload), hw_inl.get(rb.workload)
            if rb.error or ri.error or not (eb and ei and eb.get("passed") and ei.get("passed")):
                continue
            wb, wi = rb.stats(), ri.stats()
            if not (wb.get("passed") and wi.get("passed")):
                continue
            # With the launch cost, as the GPU's event times include it.
            mb = sum(launch_cycles(ln) for ln in wb.get("launches", []))
            mi = sum(launch_cycles(ln) for ln in wi.get("launches", []))
            hw_ratio = eb["kernel_ms_median"] / ei["kernel_ms_median"]
            model_ratio = mb / mi if mi else None
            if not model_ratio:
                continue
            same, within = ratio_check(model_ratio, hw_ratio)
            rows.append({"set": label, "workload": rb.workload, "hw_ratio": hw_ratio, "model_ratio": model_ratio,
                         "same_sign": same, "within_15pct": within})
    return rows


def relative_spec(text):
    """NAME=BASE,VARIANT[,--code=C][,--maxrregcount=N] -> (name, base, variant, code, max_regs)."""
    name, eq, rest = text.partition("=")
    parts = rest.split(",")
    if not eq or not name or len(parts) < 2:
        raise InputError(f"--relative {text}: expected NAME=BASE.json,VARIANT.json[,OPTION...]")
    code, max_regs = "", 0
    for opt in parts[2:]:
        key, _, value = opt.partition("=")
        if key == "--code" and value:
            code = value
        elif key == "--maxrregcount" and value.isdigit():
            max_regs = int(value)
        else:
            raise InputError(f"--relative {text}: unknown option {opt!r} (--code=C or --maxrregcount=N)")
    return name, parts[0], parts[1], code, max_regs


def relative_rows(name, hw_base, hw_var, base_runs, var_runs):
    """Per kernel that ran and passed on all four: its speedup, base cycles / variant cycles,
    on the GPU (its cycles, or its time) and in the model (cycles with each launch's cost)."""
    rows = []
    for rb, rv in zip(base_runs, var_runs):
        eb, ev = hw_base.get(rb.workload), hw_var.get(rb.workload)
        if rb.error or rv.error or not (eb and ev and eb.get("passed") and ev.get("passed")):
            continue
        wb, wv = rb.stats(), rv.stats()
        if not (wb.get("passed") and wv.get("passed")):
            continue
        mb, mv = kernel_model(wb.get("launches", [])), kernel_model(wv.get("launches", []))
        for kernel, kb in sorted((eb.get("kernels") or {}).items()):
            kv = (ev.get("kernels") or {}).get(kernel)
            if not kv or kernel not in mb or kernel not in mv or not mv[kernel]["cycles"]:
                continue
            gb, gv = kb.get("cycles", kb["ms_median"]), kv.get("cycles", kv["ms_median"])
            if not gv:
                continue
            hw_ratio, model_ratio = gb / gv, mb[kernel]["cycles"] / mv[kernel]["cycles"]
            same, within = ratio_check(model_ratio, hw_ratio)
            rows.append({"set": name, "workload": rb.workload, "kernel": kernel, "hw_ratio": hw_ratio,
                         "model_ratio": model_ratio, "same_sign": same, "within_15pct": within,
                         "unchanged_on_both": abs(hw_ratio - 1) <= NEUTRAL and abs(model_ratio - 1) <= NEUTRAL})
    return rows


# ---------------------------------------------------------------- output

def plot(rows, figs, path, title, floor_cycles, xlabel="GPU cycles (kernel time x SM clock)"):
    try:
        import matplotlib
    except ImportError:
        print("correlate: no plot: this python3 has no matplotlib (Debian's /usr/bin/python3 has it)", file=sys.stderr)
        return
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    xs = [r["hw_cycles"] for r in rows if r["model_cycles"] > 0]
    ys = [r["model_cycles"] for r in rows if r["model_cycles"] > 0]
    fig, ax = plt.subplots(figsize=(6, 6), dpi=90)
    ax.scatter(xs, ys, s=14, alpha=0.7)
    lo, hi = min(xs + ys) / 2, max(xs + ys) * 2
    ax.plot([lo, hi], [lo, hi], "k-", lw=0.8, label="model = GPU")
    for f, style in ((1.25, ":"), (0.8, ":")):
        ax.plot([lo, hi], [lo * f, hi * f], "k" + style, lw=0.6)
    if floor_cycles:
        ax.axvline(floor_cycles, color="grey", ls="--", lw=0.6, label="the GPU's shortest launch")
    for r in worst(rows):
        ax.annotate(r["kernel"], (r["hw_cycles"], r["model_cycles"]), fontsize=6, alpha=0.8)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("model cycles")
    fmt = lambda x, nd: "n/a" if x is None else f"{x:.{nd}f}"  # noqa: E731
    ax.set_title(f"{title}\n{figs['kernels']} kernels, r = {fmt(figs['pearson_r'], 3)} "
                 f"(log: {fmt(figs['pearson_r_log'], 3)}), MAPE = {fmt(figs['mape_pct'], 1)} %", fontsize=9)
    ax.legend(loc="upper left", fontsize=8)
    ax.grid(True, which="major", lw=0.3)
    fig.tight_layout()
    tmp = path + ".tmp.png"
    fig.savefig(tmp)
    plt.close(fig)
    os.replace(tmp, path)


def markdown(result):
    f, g = result["figures"], result["figures_kernel_only"]
    n = lambda x, nd: "n/a" if x is None else f"{x:.{nd}f}"  # noqa: E731
    out = [f"Configuration {result['config']}, {result['size']} inputs, model on {result['model_sms']} SMs; "
           f"GPU: {result['device']}; " + (
               "its cycles are Nsight Compute's (sm__cycles_elapsed.max per launch)"
               if result.get("gpu_cycles") == "ncu" else f"ms -> cycles at {result['clock_mhz']:g} MHz") +
           (f"; model with --set {' '.join(result['sets'])}" if result.get("sets") else "") + ".", "",
           "| kernels | Pearson r | r (log-log) | MAPE | geomean model/GPU |", "|--:|--:|--:|--:|--:|",
           f"| {f['kernels']} | {n(f['pearson_r'], 3)} | {n(f['pearson_r_log'], 3)} | {n(f['mape_pct'], 1)} % "
           f"| {n(f['geomean_ratio'], 3)} |", "",
           f"Model cycles include each launch's fixed cost (gpu.launch_overhead_ns: "
           f"{result['model_launch_overhead_us']:.2f} us per launch; the GPU's shortest launch in the file: "
           f"{result['launch_floor_us']:.1f} us). Without it (each launch's cycles from its first block to its "
           f"last): r = {n(g['pearson_r'], 3)} (log-log {n(g['pearson_r_log'], 3)}), MAPE {n(g['mape_pct'], 1)} %, "
           f"geomean model/GPU {n(g['geomean_ratio'], 3)}.", "", f"The {WORST} kernels furthest from the GPU (by |log(model/GPU)|):", "",
           "| workload | kernel | launches | GPU us per launch | GPU cycles | model cycles | error | diagnosis |",
           "|---|---|--:|--:|--:|--:|--:|---|"]
    for r in result["worst"]:
        out.append(f"| {r['workload']} | {r['kernel']} | {r['hw_launches']} | {r['hw_us_per_launch']:.1f} "
                   f"| {r['hw_cycles']:.0f} | {r['model_cycles']} | {r['error_pct']:+.0f} % | {r['diagnosis']} |")
    if result["inlining"]:
        out += ["", "Inlining the calls suite: speedup of the inlined code (separately compiled time / inlined time)",
                "", "| set | workload | GPU | model | same sign | within 15 % |", "|---|---|--:|--:|---|---|"]
        for r in result["inlining"]:
            out.append(f"| {r['set']} | {r['workload']} | {r['hw_ratio']:.2f} | {r['model_ratio']:.2f} "
                       f"| {'yes' if r['same_sign'] else '**no**'} | {'yes' if r['within_15pct'] else '**no**'} |")
        s = result["inlining_summary"]
        out.append(f"\nSame sign on {s['same_sign']} of {s['pairs']}, within 15 % on {s['within_15pct']} of {s['pairs']}.")
    for name, rows in result.get("relative", {}).items():
        moved = [r for r in rows if not r["unchanged_on_both"]]
        out += ["", f"Relative change `{name}`: each kernel's speedup (base / variant), GPU against model; "
                f"{len(rows) - len(moved)} of {len(rows)} kernels unchanged (within 2 %) on both are not listed", "",
                "| workload | kernel | GPU | model | same sign | within 15 % |", "|---|---|--:|--:|---|---|"]
        for r in moved:
            out.append(f"| {r['workload']} | {r['kernel']} | {r['hw_ratio']:.3f} | {r['model_ratio']:.3f} "
                       f"| {'yes' if r['same_sign'] else '**no**'} | {'yes' if r['within_15pct'] else '**no**'} |")
        out.append(f"\nSame sign on {sum(r['same_sign'] for r in rows)} of {len(rows)} kernels "
                   f"({sum(r['same_sign'] for r in moved)} of the {len(moved)} that moved), within 15 % on "
                   f"{sum(r['within_15pct'] for r in rows)} of {len(rows)} "
                   f"({sum(r['within_15pct'] for r in moved)} of {len(moved)}).")
    if result["notes"]:
        out += ["", "Notes:"] + [f"- {x}" for x in result["notes"]]
    out.append(f"\nModel runs: {result['model_seconds']:.0f} s of wall time in this invocation.")
    return "\n".join(out) + "\n"


def csv_list(text):
    return [x for x in (text or "").split(",") if x]


def parse(argv):
    ap = argparse.ArgumentParser(prog="correlate.py", add_help=False)
    ap.add_argument("-h", "--help", action="store_true")
    ap.add_argument("--hw", default=os.path.join(HERE, "docs/hw/h100/all-small.json"))
    ap.add_argument("--calls", action="append", default=None)
    ap.add_argument("--no-calls", action="store_true")
    ap.add_argument("--relative", action="append", default=[])
    ap.add_argument("-c", "--config", default="h100")
    ap.add_argument("--sms", type=int, default=0)
    ap.add_argument("-w", "--workloads", default="")
    ap.add_argument("--skip", default="")
    ap.add_argument("-o", "--out", default="")
    ap.add_argument("--rerun", action="store_true")
    ap.add_argument("--no-run", action="store_true")
    ap.add_argument("-j", "--jobs", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=None)
    ap.add_argument("--clock-mhz", type=float, default=0.0)
    ap.add_argument("--gpu-cycles", choices=["events", "ncu"], default="events")
    ap.add_argument("--set", action="append", default=[])
    ap.add_argument("--rfsim", default=os.path.join(HERE, "build/rfsim"))
    return ap.parse_args(argv)


def main(argv):
    args = parse(argv)
    if args.help:
        print(__doc__)
        return 0
    hw = hw_entries(args.hw)
    if args.gpu_cycles == "ncu":
        hw = ncu_entries(hw)
        if not hw:
            raise InputError(f"{args.hw}: no kernel with Nsight Compute's figures (scripts/ncu_kernels.py)")
    sizes = {e.get("size") for e in hw.values()}
    if len(sizes) != 1 or not sizes <= {"small", "large"}:
        raise InputError(f"{args.hw}: one input size expected, found {sorted(map(str, sizes))}")
    size = sizes.pop()
    hw_sms = {e.get("sms") for e in hw.values()}.pop()
    out = args.out or os.path.join(HERE, "results", f"correlate-{args.config}-{size}")
    names = csv_list(args.workloads) or sorted(hw)
    unknown = [w for w in names + csv_list(args.skip) if w not in hw]
    if unknown:
        raise InputError(f"{args.hw}: no workload {', '.join(unknown)}")
    # Shortest on the GPU first: with --timeout or a stopped run, the most workloads finish.
    names = sorted((w for w in names if w not in csv_list(args.skip)),
                   key=lambda w: (hw[w].get("kernel_ms_median") or 0, w))

    sets = ([f"gpu.num_sms={args.sms}"] if args.sms else []) + args.set
    runs = [Run(out, f"{size}-{args.sms or 'all'}sm", w, size, args.config, sets, "") for w in names]
    calls = [] if args.no_calls else (args.calls if args.calls is not None else sorted(
        p for p in glob.glob(os.path.join(os.path.dirname(args.hw), f"calls-{size}-*sm.json"))))
    pairs = []
    for path in calls:
        inl_path = path[:-len(".json")] + "-inlined.json"
        base, inl = hw_entries(path), hw_entries(inl_path)
        sms = {e.get("sms") for e in base.values()}.pop()
        csets = [f"gpu.num_sms={sms}"]
        ws = [w for w in sorted(base) if w in inl and (not csv_list(args.workloads) or w in names)
              and w not in csv_list(args.skip)]
        tag = f"{size}-{sms}sm"
        pairs.append((os.path.basename(path)[:-len(".json")], base, inl,
                      [Run(out, tag, w, size, args.config, csets, "") for w in ws],
                      [Run(out, tag + "-inlined", w, size, args.config, csets, "inlined") for w in ws]))
    by_dir = {r.dir: r for r in runs}
    rel = []
    for spec in args.relative:
        name, base_path, var_path, code, max_regs = relative_spec(spec)
        hb, hv = hw_entries(base_path), hw_entries(var_path)
        if args.gpu_cycles == "ncu":
            hb, hv = ncu_entries(hb), ncu_entries(hv)
        ws = [w for w in sorted(hb) if w in hv and w not in csv_list(args.skip)
              and (not csv_list(args.workloads) or w in names)]
        tag = f"{size}-{args.sms or 'all'}sm"
        base = []
        for w in ws:  # the base run is the correlation's own where it has one
            r = Run(out, tag, w, size, args.config, sets, "")
            base.append(by_dir.setdefault(r.dir, r))
        rel.append((name, hb, hv, base, [Run(out, f"{tag}-{name}", w, size, args.config, sets, code, max_regs)
                                         for w in ws]))
    known = {r.dir for r in runs}
    extra = [r for r in by_dir.values() if r.dir not in known] + [r for *_, v in rel for r in v]
    all_runs = runs + extra + [r for p in pairs for r in p[3] + p[4]]
    t0 = time.monotonic()
    run_all(all_runs, args)
    model_seconds = time.monotonic() - t0

    clock = args.clock_mhz
    if not clock:
        done = next((r for r in all_runs if not r.error), None)
        clock = config_number(read_config(done.dir), "gpu.clock_mhz") if done else None
        if not clock:
            raise InputError("no finished model run to read gpu.clock_mhz from; give --clock-mhz")
    rows, notes = kernel_rows(hw, runs, clock)
    figs = figures([(r["model_cycles"], r["hw_cycles"]) for r in rows])
    # The share of the launch cost in the figures: the same without it.
    floor_us = launch_floor(hw)
    kernel_only = figures([(r["model"]["kernel_cycles"], r["hw_cycles"]) for r in rows])
    first = next((r for r in runs if not r.error), None)
    overhead_ns = config_number(read_config(first.dir), "gpu.launch_overhead_ns") if first else None
    inl = inlining_rows(pairs, clock)
    device = next(iter(hw.values())).get("device", "?")
    result = {"config": args.config, "size": size, "device": device, "hw_file": os.path.relpath(args.hw, HERE),
              "hw_sms": hw_sms, "model_sms": args.sms or hw_sms, "clock_mhz": clock, "figures": figs,
              "gpu_cycles": args.gpu_cycles, "sets": args.set,
              "launch_floor_us": floor_us, "model_launch_overhead_us": (overhead_ns or 0) / 1000.0,
              "figures_kernel_only": kernel_only,
              "kernels": [{k: v for k, v in r.items() if k != "model"} for r in rows],
              "worst": [{k: v for k, v in r.items() if k != "model"} for r in worst(rows)],
              "inlining": inl,
              "relative": {name: relative_rows(name, hb, hv, b, v) for name, hb, hv, b, v in rel},
              "inlining_summary": {"pairs": len(inl), "same_sign": sum(r["same_sign"] for r in inl),
                                   "within_15pct": sum(r["within_15pct"] for r in inl)},
              "notes": notes, "model_seconds": model_seconds,
              "run_seconds": {r.workload + (f" ({r.code})" if r.code else "") + f" {r.dir.split(os.sep)[-2]}":
                              r.seconds for r in all_runs if r.seconds is not None}}
    os.makedirs(out, exist_ok=True)
    write_atomic(os.path.join(out, "correlation.json"), json.dumps(result, indent=1, sort_keys=True) + "\n")
    if rows:
        plot(rows, figs, os.path.join(out, "correlation.png"),
             f"{args.config} vs {device.split(' (')[0]}, {size} inputs", floor_us * clock,
             "GPU cycles (Nsight Compute)" if args.gpu_cycles == "ncu" else "GPU cycles (kernel time x SM clock)")
    md = markdown(result)
    write_atomic(os.path.join(out, "correlation.md"), md)
    print(md)
    print(f"correlate: results in {out}", file=sys.stderr)
    return 1 if any(r.error for r in all_runs) else 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except InputError as e:
        print(f"correlate.py: error: {e}", file=sys.stderr)
        sys.exit(2)
