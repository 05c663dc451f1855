#!/usr/bin/python3
"""The model's microbenchmark figures per configuration against published hardware figures
(docs/calibration.md, "Microbenchmarks against published figures"), and their golden check.

Usage: scripts/ubench_table.py [options]

  --rfsim BIN         the rfsim binary (default build/rfsim)
  -c, --configs C,... configurations (default v100,titanv,titanx,maxwell,h100)
  -o, --out FILE      also write the Markdown tables (or with --json the JSON) to FILE
  --json              print the figures as JSON instead of Markdown
  --compact           one Markdown table, a column per configuration ("model / published (source)")
  --runs DIR          keep the results folders in DIR/<config> and DIR/<config>-noreuse
                      (default: a temporary folder, removed afterwards)
  --check GOLDEN      compare the model's figures with GOLDEN (a JSON written by
                      --update-golden); exit status 1 on a figure that moved by more than
                      --tolerance (relative) and 0.02 (absolute), or a missing one
  --update-golden GOLDEN   write the model's figures to GOLDEN (the configurations not run keep
                      theirs)
  --tolerance T       relative tolerance of --check (default 0.01)

For each configuration it runs the ubench workloads on the timing model at their small inputs
(`rfsim run -c configs/C.yaml -w ubench_... --timing`), and ubench_regbank again with
`--set regfile.operand_reuse=false`, and reads each figure from the run's stats.json: the
%clock64 figures a workload measures (workloads.<w>.measured: cycles per load, per operation,
per FMA, per pass over straight-line code, per call), and from the launch statistics the streaming and L2
bandwidths (ubench_mem_bandwidth's and ubench_l2_bandwidth's bytes over their last launch's
cycles, at the configuration's SM clock) and the FP32 issue rates (ubench_occupancy's FP32 warp
instructions per cycle per SM, its best launch; ubench_fp32_peak's difference of its two
launches). The published
figures and their sources are in scripts/rfsim_tools/ubench_published.py.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # rfsim_tools, beside this file

from rfsim_tools.common import InputError, write_atomic  # noqa: E402
from rfsim_tools.stats import config_number, load_stats, lookup, read_config  # noqa: E402
from rfsim_tools.ubench_published import PUBLISHED  # noqa: E402

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONFIGS = ["v100", "titanv", "titanx", "maxwell", "h100"]
WORKLOADS = ["ubench_mem_latency", "ubench_latency", "ubench_smem_conflicts", "ubench_regbank",
             "ubench_occupancy", "ubench_fp32_peak", "ubench_mem_bandwidth", "ubench_l2_bandwidth", "ubench_icache",
             "ubench_dram_rows", "ubench_calls"]

# (key, label, unit, workload, measured name): figures a workload measures itself.
MEASURED = [
    ("l1_latency", "L1 hit latency (pointer chase, 8 KiB)", "cycles/load", "ubench_mem_latency", "latency_l1"),
    ("l2_latency", "L2 hit latency (pointer chase, 1 MiB)", "cycles/load", "ubench_mem_latency", "latency_l2"),
    ("dram_latency", "DRAM latency (pointer chase, 16 MiB, a word every 16 KiB)", "cycles/load",
     "ubench_mem_latency", "latency_dram"),
    ("smem_latency", "shared-memory load latency (chase)", "cycles/load", "ubench_latency",
     "per_op_shared_ld_chase"),
    ("global_chase", "global load chase of one warp (128 KiB)", "cycles/load", "ubench_latency",
     "per_op_global_ld_chase"),
    ("smem_1way", "shared load, no conflict (dependent)", "cycles/load", "ubench_smem_conflicts", "dependent_s1"),
    ("smem_2way", "shared load, 2-way conflict (dependent)", "cycles/load", "ubench_smem_conflicts", "dependent_s2"),
    ("smem_32way", "shared load, 32-way conflict (dependent)", "cycles/load", "ubench_smem_conflicts",
     "dependent_s32"),
    ("smem_32way_indep", "shared load, 32-way conflict (8 independent chains)", "cycles/load",
     "ubench_smem_conflicts", "independent_s32"),
    ("fma_3src", "FMA, 3 distinct source registers, reuse as configured", "cycles/FMA", "ubench_regbank",
     "per_fma_distinct"),
    ("fma_2src", "FMA, 2 distinct source registers, reuse as configured", "cycles/FMA", "ubench_regbank",
     "per_fma_pair"),
    ("fma_1src", "FMA, 1 source register, reuse as configured (one warp's FP32 issue interval)", "cycles/FMA",
     "ubench_regbank", "per_fma_same"),
    ("fma_fp64", "fp64 FMA, 3 distinct source pairs, reuse as configured", "cycles/FMA", "ubench_regbank",
     "per_fma_fp64"),
] + [(k, f"dependent {label}", "cycles/op", "ubench_latency", "per_op_" + name) for k, label, name in [
    ("int_add", "int add", "int_add"), ("int_mul", "int mul", "int_mul"), ("int_mad", "int mad", "int_mad"),
    ("int_div", "int div", "int_div"), ("fp32_add", "fp32 add", "fp32_add"),
    ("fp32_mul", "fp32 mul", "fp32_mul"), ("fp32_fma", "fp32 fma", "fp32_fma"),
    ("fp32_div", "fp32 div.rn", "fp32_div_rn"), ("sfu_sin", "sin.approx (SFU)", "sfu_sin_approx"),
    ("sfu_rsqrt", "rsqrt.approx (SFU)", "sfu_rsqrt_approx"),
    ("sfu_ex2_lg2", "lg2/ex2.approx (SFU)", "sfu_lg2_ex2_approx"),
    ("fp64_add", "fp64 add", "fp64_add"), ("fp64_fma", "fp64 fma", "fp64_fma"),
    ("fp64_div", "fp64 div.rn", "fp64_div_rn")]] + [
    ("icache_cold_96", "straight-line code, 96 adds, one warp: first (cold) pass", "cycles", "ubench_icache", "cold_96"),
    ("icache_warm_96", "the same, second (warm) pass", "cycles", "ubench_icache", "warm_96"),
    ("icache_cold_768", "straight-line code, 768 adds (12 KiB at 16 B an instruction): first pass", "cycles/add",
     "ubench_icache", "cold_768_per_add"),
    ("icache_warm_768", "the same, second pass (more than Volta's 12 KiB L0)", "cycles/add", "ubench_icache",
     "warm_768_per_add"),
    ("dram_row_hit", "DRAM latency, 16 MiB of lines in address order (pointer chase: mostly row hits)",
     "cycles/load", "ubench_dram_rows", "latency_in_order"),
    ("dram_row_open", "the same lines in random order (rows opened: row misses and conflicts)", "cycles/load",
     "ubench_dram_rows", "latency_random_order"),
    ("call_chain", "dependent calls to a one-add function (ubench_calls)", "cycles/call", "ubench_calls", "per_call"),
    ("call_overhead", "the same less the inline add: a call and its return", "cycles/call", "ubench_calls",
     "call_overhead"),
]
NOREUSE = [(k + "_noreuse", label.replace("reuse as configured", "no operand reuse"), unit, w, name)
           for k, label, unit, w, name in MEASURED if w == "ubench_regbank"]
# Figures derived from the launch statistics.
DERIVED = [
    ("smem_per_way", "shared load, cycles per further conflicting way ((32-way - 1-way) / 31)", "cycles"),
    ("dram_bandwidth", "streaming bandwidth, 8 MiB read + sums written (ubench_mem_bandwidth)", "GB/s"),
    ("dram_bandwidth_bpc", "the same per SM cycle", "bytes/cycle"),
    ("fp32_rate", "FP32 issue rate (ubench_occupancy, best block size, whole launch)",
     "warp instrs/cycle/SM"),
    ("fp32_peak", "peak FP32 issue rate (ubench_fp32_peak: 8 independent chains per thread, the difference of "
     "two launches)", "warp instrs/cycle/SM"),
    ("l2_bandwidth", "L2 read bandwidth, a 1.25 MiB array in the L2 read 8 times (ubench_l2_bandwidth)", "GB/s"),
    ("l2_bandwidth_bpc", "the same per SM cycle", "bytes/cycle"),
    ("icache_miss", "I-cache cold start: 96 straight-line adds, first pass minus second (ubench_icache)", "cycles"),
]
ORDER = ([m[0] for m in MEASURED[:5]] + ["dram_bandwidth", "dram_bandwidth_bpc", "l2_bandwidth", "l2_bandwidth_bpc"]
         + [m[0] for m in MEASURED[5:9]] + ["smem_per_way"] + [m[0] for m in MEASURED[9:13]]
         + [m[0] for m in NOREUSE] + ["fp32_rate", "fp32_peak"] + [m[0] for m in MEASURED[13:]] + ["icache_miss"])
for _k in ("dram_row_open", "dram_row_hit"):  # beside the DRAM chase
    ORDER.remove(_k)
    ORDER.insert(ORDER.index("dram_latency") + 1, _k)
LABELS = {k: (label, unit) for k, label, unit, *_ in MEASURED + NOREUSE + DERIVED}


def run(rfsim, config, out, workloads, extra=()):
    cmd = [rfsim, "run", "-q", "-c", os.path.join(HERE, "configs", config + ".yaml"), "-w", ",".join(workloads),
           "--timing", "--overwrite", "-o", out, *extra]
    p = subprocess.run(cmd, cwd=HERE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        raise InputError(f"{' '.join(cmd)}: exit status {p.returncode}\n{p.stdout[-2000:]}")


def measured(ws, w, name, run_dir):
    v = lookup(ws.get(w, {}).get("measured", {}), name)
    if v is None:
        raise InputError(f"{run_dir}/stats.json: no workloads.{w}.measured.{name} (rebuilt rfsim?)")
    return float(v)


def figures(run_dir, noreuse_dir):
    """The model's figures of one configuration from its two results folders."""
    ws = load_stats(run_dir)["workloads"]
    out = {k: measured(ws, w, name, run_dir) for k, _, _, w, name in MEASURED}
    ws_nr = load_stats(noreuse_dir)["workloads"]
    out.update({k: measured(ws_nr, w, name, noreuse_dir) for k, _, _, w, name in NOREUSE})
    out["smem_per_way"] = (out["smem_32way"] - out["smem_1way"]) / 31
    config = read_config(run_dir)
    clock = config_number(config, "gpu.clock_mhz")
    bw = ws["ubench_mem_bandwidth"]
    moved = measured(ws, "ubench_mem_bandwidth", "bytes_moved", run_dir)
    cycles = bw["launches"][-1]["cycles"]
    out["dram_bandwidth_bpc"] = moved / cycles
    out["dram_bandwidth"] = moved / cycles * clock / 1000.0
    l2 = ws["ubench_l2_bandwidth"]
    moved = measured(ws, "ubench_l2_bandwidth", "bytes_moved", run_dir)
    out["l2_bandwidth_bpc"] = moved / l2["launches"][-1]["cycles"]
    out["l2_bandwidth"] = out["l2_bandwidth_bpc"] * clock / 1000.0
    out["icache_miss"] = out["icache_cold_96"] - out["icache_warm_96"]
    rates = []
    for launch in ws["ubench_occupancy"]["launches"]:
        sp = (lookup(launch["gpu"], "sm.exec.warp_instrs_by_unit") or {}).get("sp", 0)
        rates.append(sp / (launch["cycles"] * lookup(launch["gpu"], "num_sms")))
    out["fp32_rate"] = max(rates)
    peak = ws["ubench_fp32_peak"]["launches"]
    sp = [(lookup(l["gpu"], "sm.exec.warp_instrs_by_unit") or {}).get("sp", 0) for l in peak]
    out["fp32_peak"] = (sp[1] - sp[0]) / ((peak[1]["cycles"] - peak[0]["cycles"]) * lookup(peak[0]["gpu"], "num_sms"))
    return {k: round(v, 4) for k, v in out.items()}


def model_figures(args, config, runs):
    d, dn = os.path.join(runs, config), os.path.join(runs, config + "-noreuse")
    run(args.rfsim, config, d, WORKLOADS)
    run(args.rfsim, config, dn, ["ubench_regbank"], ["--set", "regfile.operand_reuse=false"])
    return figures(d, dn)


def fmt(v):
    return "—" if v is None else f"{v:.0f}" if abs(v) >= 100 else f"{v:.2f}"


def table(config, model):
    """One configuration's Markdown table: quantity, model, published (source), model / published."""
    pub = PUBLISHED.get(config, {})
    rows = [f"### {config}\n", "| quantity | unit | model | published (source) | model / published |",
            "|---|---|--:|---|--:|"]
    for k in ORDER:
        label, unit = LABELS[k]
        m = model.get(k)
        p = pub.get(k, [])
        if p:
            published = "; ".join(f"{fmt(v)} ({src})" for v, src in p)
        else:
            published = "not found"
        ratio = f"{m / p[0][0]:.2f}" if m is not None and p else ""
        rows.append(f"| {label} | {unit} | {fmt(m)} | {published} | {ratio} |")
    return "\n".join(rows) + "\n"


def compact(configs, model):
    """All configurations in one Markdown table: each cell the model's figure, then the first
    published one and its source's letter; the sources listed below by letter."""
    letters, rows = {}, []
    rows.append("| quantity | unit | " + " | ".join(configs) + " |")
    rows.append("|---|---|" + "--:|" * len(configs))
    for k in ORDER:
        label, unit = LABELS[k]
        cells = []
        for c in configs:
            m = model[c].get(k)
            p = PUBLISHED.get(c, {}).get(k, [])
            cell = fmt(m)
            if p:
                letter = letters.setdefault(p[0][1], chr(ord("a") + len(letters)))
                cell += f" / {fmt(p[0][0])} ({letter})"
            cells.append(cell)
        rows.append(f"| {label} | {unit} | " + " | ".join(cells) + " |")
    rows.append("")
    rows += [f"({letter}) {src}  " for src, letter in letters.items()]
    return "\n".join(rows) + "\n"


def check(golden_path, model, tol):
    """Each golden figure against the model's: the differences, one line each."""
    with open(golden_path, encoding="utf-8") as f:
        golden = json.load(f)
    bad = []
    for config, figs in golden["figures"].items():
        if config not in model:
            continue
        for k, want in figs.items():
            got = model[config].get(k)
            if got is None:
                bad.append(f"{config} {k}: missing (golden {want})")
            elif abs(got - want) > max(tol * abs(want), 0.02):
                bad.append(f"{config} {k}: {got} (golden {want}, {100 * (got / want - 1) if want else 0:+.1f} %)")
    return bad


def updated_golden(path, model):
    """The golden file's text with the model's figures; configurations not run keep theirs."""
    figs = {}
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            figs = json.load(f).get("figures", {})
    figs.update(model)
    golden = {"note": "scripts/ubench_table.py --update-golden: the model's microbenchmark figures, small "
                      "inputs (tests/CMakeLists.txt checks them)", "figures": figs}
    return json.dumps(golden, indent=1, sort_keys=True) + "\n"


def main():
    ap = argparse.ArgumentParser(prog="ubench_table.py", add_help=False)
    ap.add_argument("-h", "--help", action="store_true")
    ap.add_argument("--rfsim", default=os.path.join(HERE, "build/rfsim"))
    ap.add_argument("-c", "--configs", default=",".join(CONFIGS))
    ap.add_argument("-o", "--out", default="")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--compact", action="store_true")
    ap.add_argument("--runs", default="")
    ap.add_argument("--check", default="")
    ap.add_argument("--update-golden", default="")
    ap.add_argument("--tolerance", type=float, default=0.01)
    args = ap.parse_args()
    if args.help:
        print(__doc__)
        return 0
    configs = [c for c in args.configs.split(",") if c]
    unknown = [c for c in configs if not os.path.exists(os.path.join(HERE, "configs", c + ".yaml"))]
    if unknown:
        sys.exit(f"ubench_table.py: no configs/{unknown[0]}.yaml (configurations: {', '.join(CONFIGS)})")
    runs = args.runs or tempfile.mkdtemp(prefix="ubench-table-")
    try:
        model = {c: model_figures(args, c, runs) for c in configs}
    except InputError as e:
        sys.exit(f"ubench_table.py: {e}")
    finally:
        if not args.runs:
            shutil.rmtree(runs, ignore_errors=True)
    if args.json:
        text = json.dumps({"figures": model, "published": {c: PUBLISHED.get(c, {}) for c in configs}}, indent=1)
    elif args.compact:
        text = compact(configs, model)
    else:
        text = "\n".join(table(c, model[c]) for c in configs)
    print(text)
    if args.out:
        write_atomic(args.out, text + "\n")
    if args.update_golden:
        write_atomic(args.update_golden, updated_golden(args.update_golden, model))
    if args.check:
        bad = check(args.check, model, args.tolerance)
        if bad:
            print(f"{len(bad)} figures differ from {args.check} (scripts/ubench_table.py --update-golden "
                  f"{args.check} rewrites it after an intended change):\n  " + "\n  ".join(bad), file=sys.stderr)
            return 1
        print(f"all figures within {args.tolerance:.0%} of {args.check}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
