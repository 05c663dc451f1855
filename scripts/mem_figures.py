#!/usr/bin/env python3
"""Memory-system figures from `rfsim run --workload ... --timing` results.

Usage: scripts/mem_figures.py RESULTS_DIR [RESULTS_DIR ...]

For each results folder (one configuration each) prints, as Markdown:
  * the memory microbenchmarks' measured values (ubench_mem_latency's
    cycles per load at L1 / L2 / DRAM footprints, ubench_mem_bandwidth's
    bytes per cycle: stats.json `workloads.<w>.measured`), beside the
    configured values they should approach;
  * per workload: L1D accesses, the local (spill / fill / stack) share of
    them, L1D hit rate, L1D and L2 MPKI (misses per 1000 warp
    instructions), and DRAM bandwidth use, summed over the workload's
    launches (stats.json `workloads.<w>.total.gpu`, docs/statistics.md).
"""
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # rfsim_tools, beside this file

from rfsim_tools.common import InputError  # noqa: E402
from rfsim_tools.figures import value  # noqa: E402
from rfsim_tools.stats import config_number, load_stats, lookup, read_config  # noqa: E402


def stat(gpu, path):
    """A count of the GPU statistics, 0 where the run has none (null: a ratio over nothing)."""
    x = lookup(gpu, path)
    return x if isinstance(x, (int, float)) else 0


def latency_table(w, config):
    """ubench_mem_latency's cycles per load (measured.latency_l1, _l2, _dram)."""
    cpl = [value(w, "measured", f"latency_{level}") for level in ("l1", "l2", "dram")]
    if None in cpl:
        return
    nan = float("nan")
    l1, l2, icnt, dram = (config_number(config, f"{s}.latency") or nan for s in ("l1d", "l2", "icnt", "dram"))
    print("| level | configured (unloaded) | measured cycles/load |\n|---|---|---|")
    print(f"| L1D hit | l1d.latency = {l1:.0f} | {cpl[0]:.1f} |")
    print(f"| L2 hit | l1d + 2 x icnt + l2 = {l1 + 2 * icnt + l2:.0f} | {cpl[1]:.1f} |")
    # The chain's DRAM words lie in rows the chase has not opened: row misses
    # and conflicts, t_rcd (+ t_rp) + t_cl DRAM clocks beyond dram.latency.
    print(f"| DRAM | L2 hit + dram.latency + (t_rp +) t_rcd + t_cl + transfer = {l1 + 2 * icnt + l2 + dram:.0f} "
          f"+ DRAM timing + transfer | {cpl[2]:.1f} |")


def bandwidth_row(w):
    """ubench_mem_bandwidth: bytes moved (measured.bytes_moved) per cycle, and the DRAM bus use."""
    moved = value(w, "measured", "bytes_moved")
    cycles = lookup(w["total"]["gpu"], "cycles")
    if moved is None or not cycles:
        return
    util = lookup(w["launches"][-1]["gpu"], "mem.dram.bandwidth_utilisation")
    print(f"| streaming bandwidth | DRAM peak (channels x bus bytes x DRAM/core clock) | "
          f"{moved / cycles:.0f} B/cycle, DRAM utilisation "
          f"{util if util is not None else float('nan'):.0%} |")


def main(dirs):
    for d in dirs:
        try:
            workloads = load_stats(d)["workloads"]
        except InputError as e:
            sys.exit(f"mem_figures.py: {e}")
        config = read_config(d)
        print(f"## {config.get('name', d)}\n")
        if "ubench_mem_latency" in workloads:
            latency_table(workloads["ubench_mem_latency"], config)
        if "total" in workloads.get("ubench_mem_bandwidth", {}):
            bandwidth_row(workloads["ubench_mem_bandwidth"])
        print()
        print("| workload | L1D accesses | local share | L1D hit rate | L1D MPKI | L2 MPKI | DRAM bytes |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        for name, w in workloads.items():
            if "total" not in w:
                continue  # run without --timing: no GPU statistics
            gpu = w["total"]["gpu"]
            acc = stat(gpu, "l1d.accesses")
            kinds = lookup(gpu, "l1d.accesses_by_kind") or {}
            loc = kinds.get("local_load", 0) + kinds.get("local_store", 0)
            wi = stat(gpu, "warp_instrs") or 1
            dramb = stat(gpu, "mem.dram.read_bytes") + stat(gpu, "mem.dram.write_bytes")
            print(f"| {name} | {acc} | {loc / acc if acc else 0:.1%} | "
                  f"{stat(gpu, 'l1d.hits') / acc if acc else 0:.1%} "
                  f"| {1000 * stat(gpu, 'l1d.misses') / wi:.1f} | {1000 * stat(gpu, 'mem.l2.misses') / wi:.1f} "
                  f"| {dramb} |")
        print()


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
