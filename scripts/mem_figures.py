#!/usr/bin/env python3
"""Memory-system figures from `rfsim run --workload ... --timing` results.

Usage: scripts/mem_figures.py RESULTS_DIR [RESULTS_DIR ...]

For each results folder (one configuration each) prints, as Markdown:
  * the memory microbenchmarks' measured values (ubench_mem_latency's
    cycles per load at L1 / L2 / DRAM footprints, ubench_mem_bandwidth's
    bytes per cycle), beside the configured values they should approach;
  * per workload: L1D accesses, the local (spill / fill / stack) share of
    them, L1D hit rate, L1D and L2 MPKI (misses per 1000 warp
    instructions), and DRAM bandwidth use, summed over the workload's
    launches (timing.json "total").
"""
import json
import re
import sys
from pathlib import Path


def load(d):
    d = Path(d)
    timing = json.loads((d / "timing.json").read_text())
    checks = json.loads((d / "checks.json").read_text())
    config = (d / "config.yaml").read_text() if (d / "config.yaml").exists() else ""
    return timing, checks, config


def cfg_value(config, section, key):
    m = re.search(rf"^{section}:\n(?:(?:  .*|\s*)\n)*?  {key}: *([^ #\n]+)", config, re.M)
    return float(m.group(1)) if m else float("nan")


def main(dirs):
    for d in dirs:
        timing, checks, config = load(d)
        name = re.search(r"^name: *(\S+)", config, re.M)
        print(f"## {name.group(1) if name else d}\n")
        l1, l2lat, icnt = (cfg_value(config, "l1d", "latency"), cfg_value(config, "l2", "latency"),
                           cfg_value(config, "icnt", "latency"))
        dram = cfg_value(config, "dram", "latency")
        if "ubench_mem_latency" in checks:
            det = checks["ubench_mem_latency"]["detail"]
            m = re.search(r"L1 ([\d.]+), L2 ([\d.]+), DRAM ([\d.]+)", det)
            if m:
                print("| level | configured (unloaded) | measured cycles/load |\n|---|---|---|")
                print(f"| L1D hit | l1d.latency = {l1:.0f} | {m.group(1)} |")
                print(f"| L2 hit | l1d + 2 x icnt + l2 = {l1 + 2 * icnt + l2lat:.0f} | {m.group(2)} |")
                print(f"| DRAM | L2 hit + dram.latency + transfer = {l1 + 2 * icnt + l2lat + dram:.0f} + transfer "
                      f"| {m.group(3)} |")
        if "ubench_mem_bandwidth" in timing:
            tot = timing["ubench_mem_bandwidth"]["total"]
            det = checks["ubench_mem_bandwidth"]["detail"]
            b = int(re.search(r"bytes (\d+)", det).group(1))
            cyc = tot["gpu.cycles"]
            launches = timing["ubench_mem_bandwidth"]["launches"]
            util = launches[-1].get("gpu.mem.dram.bandwidth_utilisation", float("nan"))
            print(f"| streaming bandwidth | DRAM peak (channels x bus bytes x DRAM/core clock) | "
                  f"{b / cyc:.0f} B/cycle, DRAM utilisation {util:.0%} |")
        print()
        print("| workload | L1D accesses | local share | L1D hit rate | L1D MPKI | L2 MPKI | DRAM bytes |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        for w, v in timing.items():
            t = v["total"]
            acc = t.get("gpu.l1d.accesses", 0)
            kinds = t.get("gpu.l1d.accesses_by_kind", {})
            loc = kinds.get("local_load", 0) + kinds.get("local_store", 0)
            wi = t.get("gpu.warp_instrs", 0) or 1
            dramb = t.get("gpu.mem.dram.read_bytes", 0) + t.get("gpu.mem.dram.write_bytes", 0)
            print(f"| {w} | {acc} | {loc / acc if acc else 0:.1%} | {t.get('gpu.l1d.hits', 0) / acc if acc else 0:.1%} "
                  f"| {1000 * t.get('gpu.l1d.misses', 0) / wi:.1f} | {1000 * t.get('gpu.mem.l2.misses', 0) / wi:.1f} "
                  f"| {dramb} |")
        print()


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
