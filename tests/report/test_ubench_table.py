#!/usr/bin/python3
"""scripts/ubench_table.py without running the model: the figures read from crafted results
folders (the measured values, the bandwidths at the SM clock, the best and the peak FP32 rate,
the cost of a conflicting way, the I-cache's cold start), the table's published column and ratio, and the golden check's tolerance."""

import json
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(REPO, "scripts"))

import ubench_table  # noqa: E402
from rfsim_tools.common import InputError  # noqa: E402


def stat(value, unit="cycle"):
    return {"value": value, "unit": unit, "desc": "..."}


def write_run(d, measured, launches=None, clock=1000.0):
    """A results folder: stats.json with each workload's measured values, and config.yaml."""
    os.makedirs(d, exist_ok=True)
    ws = {}
    for (w, name), v in measured.items():
        ws.setdefault(w, {"passed": True, "measured": {}})["measured"][name] = stat(v)
    for w, ls in (launches or {}).items():
        ws.setdefault(w, {"passed": True})["launches"] = ls
    with open(os.path.join(d, "stats.json"), "w", encoding="utf-8") as f:
        json.dump({"schema": "rfsim-stats/2", "run": {}, "workloads": ws}, f)
    with open(os.path.join(d, "config.yaml"), "w", encoding="utf-8") as f:
        f.write(f"name: test\ngpu:\n  num_sms: 2\n  clock_mhz: {clock}\n")


def occ_launch(cycles, sp):
    return {"kernel": "occ_fma", "cycles": cycles,
            "gpu": {"num_sms": stat(2, "count"), "sm": {"exec": {"warp_instrs_by_unit": stat({"sp": sp, "int": 9})}}}}


def crafted(tmp):
    """Two folders: every measured figure 10 + its index, ubench_regbank's 100 + index without reuse."""
    full = {(w, name): 10.0 + i for i, (_, _, _, w, name) in enumerate(ubench_table.MEASURED)}
    full[("ubench_smem_conflicts", "dependent_s1")] = 20.0
    full[("ubench_smem_conflicts", "dependent_s32")] = 82.0
    full[("ubench_mem_bandwidth", "bytes_moved")] = 8000.0
    full[("ubench_l2_bandwidth", "bytes_moved")] = 9000.0
    full[("ubench_icache", "cold_96")] = 500.0
    full[("ubench_icache", "warm_96")] = 200.0
    launches = {"ubench_mem_bandwidth": [{"kernel": "stream_sum", "cycles": 10, "gpu": {}}],
                # The warm-up launch, then the measured one (the last).
                "ubench_l2_bandwidth": [{"kernel": "l2_sum", "cycles": 99, "gpu": {}},
                                        {"kernel": "l2_sum", "cycles": 3, "gpu": {}}],
                "ubench_occupancy": [occ_launch(100, 100), occ_launch(100, 300), occ_launch(200, 200)],
                "ubench_fp32_peak": [occ_launch(50, 100), occ_launch(150, 700)]}
    write_run(os.path.join(tmp, "c"), full, launches)
    nr = {(w, name): 100.0 + i for i, (_, _, _, w, name) in enumerate(ubench_table.NOREUSE)}
    write_run(os.path.join(tmp, "c-noreuse"), nr)
    return os.path.join(tmp, "c"), os.path.join(tmp, "c-noreuse")


class Figures(unittest.TestCase):
    def test_figures_from_crafted_runs(self):
        with tempfile.TemporaryDirectory() as tmp:
            figs = ubench_table.figures(*crafted(tmp))
        self.assertEqual(figs["l1_latency"], 10.0)  # the first measured figure
        self.assertEqual(figs["fma_3src_noreuse"], 100.0)
        self.assertEqual(figs["smem_per_way"], 2.0)  # (82 - 20) / 31
        self.assertEqual(figs["dram_bandwidth_bpc"], 800.0)  # 8000 bytes in 10 cycles
        self.assertEqual(figs["dram_bandwidth"], 800.0)  # at 1000 MHz: 800 GB/s
        self.assertEqual(figs["fp32_rate"], 1.5)  # the best launch: 300 / (100 cycles x 2 SMs)
        self.assertEqual(figs["fp32_peak"], 3.0)  # (700 - 100) / ((150 - 50) cycles x 2 SMs)
        self.assertEqual(figs["l2_bandwidth_bpc"], 3000.0)  # the last launch: 9000 bytes in 3 cycles
        self.assertEqual(figs["l2_bandwidth"], 3000.0)
        self.assertEqual(figs["icache_miss"], 300.0)  # 500 - 200
        self.assertEqual(set(figs), set(ubench_table.ORDER))

    def test_a_missing_measured_figure_names_its_folder(self):
        with tempfile.TemporaryDirectory() as tmp:
            write_run(os.path.join(tmp, "old"), {("ubench_mem_latency", "latency_l1"): 28.0})
            write_run(os.path.join(tmp, "nr"), {})
            with self.assertRaisesRegex(InputError, r"old/stats.json: no workloads.ubench_mem_latency"
                                                    r".measured.latency_l2"):
                ubench_table.figures(os.path.join(tmp, "old"), os.path.join(tmp, "nr"))


class Table(unittest.TestCase):
    def test_published_ratio_and_missing_rows(self):
        text = ubench_table.table("h100", {"l1_latency": 32.2, "fp32_rate": 2.0, "fma_3src_noreuse": 1.8})
        rows = {r.split(" | ")[0].lstrip("| "): r for r in text.splitlines() if r.startswith("| ")}
        self.assertIn("| 1.00 |", rows["L1 hit latency (pointer chase, 8 KiB)"])  # 32.2 against 32.2
        self.assertIn("| 0.50 |", rows["FP32 issue rate (ubench_occupancy, best block size, whole launch)"])
        self.assertIn("not found", rows["FMA, 3 distinct source registers, no operand reuse"])
        # A figure the run lacks: a dash, and no ratio.
        self.assertTrue(rows["shared load, 2-way conflict (dependent)"].endswith("| — | not found |  |"))
        # A published figure the run lacks: a dash, the figure, and no ratio.
        self.assertIn("| — | 528 (this H200", rows["I-cache cold start: 96 straight-line adds, first pass minus second "
                                           "(ubench_icache)"])


    def test_compact_letters_each_source_once(self):
        text = ubench_table.compact(["v100", "h100"], {"v100": {"l1_latency": 28.0, "l2_latency": 193.0},
                                                        "h100": {"l1_latency": 32.2}})
        self.assertIn("| L1 hit latency (pointer chase, 8 KiB) | cycles/load | 28.00 / 28.00 (a) | "
                      "32.20 / 32.20 (b) |", text)
        self.assertIn("| 193 / 193 (a) | — / 274 (b) |", text)  # h100 ran without an L2 figure here
        self.assertEqual(text.count("(a) Jia et al. 2018"), 1)


class Check(unittest.TestCase):
    def test_tolerance_and_missing(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "golden.json")
            with open(path, "w", encoding="utf-8") as f:
                json.dump({"figures": {"v100": {"a": 100.0, "b": 1.0, "c": 5.0}, "h100": {"a": 1.0}}}, f)
            # 100.9 within 1 %; 1.015 within the absolute 0.02; c missing; h100 not run.
            self.assertEqual(ubench_table.check(path, {"v100": {"a": 100.9, "b": 1.015}}, 0.01),
                             ["v100 c: missing (golden 5.0)"])
            bad = ubench_table.check(path, {"v100": {"a": 98.0, "b": 1.0, "c": 5.0}}, 0.01)
            self.assertEqual(bad, ["v100 a: 98.0 (golden 100.0, -2.0 %)"])

    def test_update_keeps_the_configurations_not_run(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "golden.json")
            with open(path, "w", encoding="utf-8") as f:
                json.dump({"figures": {"v100": {"a": 1.0}, "h100": {"a": 2.0}}}, f)
            figs = json.loads(ubench_table.updated_golden(path, {"v100": {"a": 3.0}}))["figures"]
            self.assertEqual(figs, {"v100": {"a": 3.0}, "h100": {"a": 2.0}})
            self.assertEqual(json.loads(ubench_table.updated_golden(os.path.join(tmp, "new.json"),
                                                                    {"v100": {"a": 3.0}}))["figures"],
                             {"v100": {"a": 3.0}})


if __name__ == "__main__":
    unittest.main()
