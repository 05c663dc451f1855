#!/usr/bin/python3
"""The figure scripts read their numbers from the statistics JSON, never from text: on crafted
results folders, scripts/mem_figures.py takes the microbenchmarks' measurements from
workloads.<w>.measured (their check detail says something else), and scripts/r2d2_figures.py
takes why a kernel ran its original code from its last launch's notes.r2d2."""

import json
import os
import pathlib
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.join(os.path.dirname(os.path.dirname(HERE)), "scripts")
sys.dont_write_bytecode = True
sys.path.insert(0, SCRIPTS)

import r2d2_figures  # noqa: E402


def stat(value, unit="count"):
    return {"value": value, "unit": unit, "desc": "..."}


def write_run(folder, workloads, config=""):
    os.makedirs(folder, exist_ok=True)
    doc = {"schema": "rfsim-stats/2", "run": {"config": "v100", "mechanisms": [], "timing": True},
           "workloads": workloads}
    with open(os.path.join(folder, "stats.json"), "w", encoding="utf-8") as f:
        json.dump(doc, f)
    if config:
        with open(os.path.join(folder, "config.yaml"), "w", encoding="utf-8") as f:
            f.write(config)


class FiguresTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def test_mem_figures_reads_the_measured_statistics(self):
        gpu = {"cycles": stat(1000, "cycle"), "warp_instrs": stat(100)}
        last = {"gpu": {"mem": {"dram": {"bandwidth_utilisation": stat(0.5, "ratio")}}}}
        write_run(self.dir, {
            "ubench_mem_latency": {
                "passed": True, "detail": "L1 1.0, L2 2.0, DRAM 3.0 cycles/load (not these)",
                "measured": {"latency_l1": stat(28.125, "cycle"), "latency_l2": stat(251.0, "cycle"),
                             "latency_dram": stat(612.75, "cycle")},
                "total": {"gpu": gpu}, "launches": [last]},
            "ubench_mem_bandwidth": {
                "passed": True, "detail": "bytes 7 (not these)",
                "measured": {"bytes_moved": stat(250000.0, "byte")},
                "total": {"gpu": gpu}, "launches": [last]},
        }, "name: v100\nl1d:\n  latency: 28\nl2:\n  latency: 200\nicnt:\n  latency: 10\ndram:\n  latency: 300\n")
        r = subprocess.run([sys.executable, os.path.join(SCRIPTS, "mem_figures.py"), self.dir],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("| L1D hit | l1d.latency = 28 | 28.1 |", r.stdout)
        self.assertIn("| L2 hit | l1d + 2 x icnt + l2 = 248 | 251.0 |", r.stdout)
        self.assertIn("+ transfer | 612.8 |", r.stdout)
        self.assertIn("250 B/cycle, DRAM utilisation 50%", r.stdout)

    def test_mem_figures_without_measurements_prints_no_microbenchmark_rows(self):
        gpu = {"cycles": stat(1000, "cycle"), "warp_instrs": stat(100)}
        write_run(self.dir, {"ubench_mem_latency": {"passed": False, "detail": "L1 1.0, L2 2.0, DRAM 3.0",
                                                    "total": {"gpu": gpu}, "launches": []}})
        r = subprocess.run([sys.executable, os.path.join(SCRIPTS, "mem_figures.py"), self.dir],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn("| L1D hit |", r.stdout)

    def test_r2d2_original_code_from_the_last_launch_notes(self):
        root = pathlib.Path(self.dir)
        launches = [{"kernel": "k1", "notes": {"r2d2": "a range check failed"}},
                    {"kernel": "k2", "notes": {"r2d2": "fewer blocks per SM"}},
                    {"kernel": "k1", "notes": {}},  # transformed later: not listed
                    {"kernel": "k3"}]
        write_run(root / "r2d2" / "wa", {"wa": {"passed": False, "detail": "", "launches": launches}})
        write_run(root / "r2d2" / "wb", {"wb": {"passed": True, "detail": "", "launches": [{"kernel": "k1"}]}})
        got = r2d2_figures.original_code(root / "r2d2", ["wa", "wb", "missing"])
        self.assertEqual(got, {("wa", "k2"): "fewer blocks per SM"})


if __name__ == "__main__":
    unittest.main()
