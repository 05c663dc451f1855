#!/usr/bin/python3
"""scripts/correlate.py: the maths (Pearson r, MAPE, ms -> cycles, the ratio test) on hand-computed
values, and the whole script with --no-run on a crafted hardware JSON and crafted model runs:
per-kernel matching, the figures, the worst kernels' order and diagnosis, the inlining ratios."""

import json
import math
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
SCRIPT = os.path.join(REPO, "scripts", "correlate.py")
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(REPO, "scripts"))

import correlate  # noqa: E402


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def stat(value, unit="count"):
    return {"value": value, "unit": unit, "desc": "..."}


def launch(kernel, cycles, blocks=264, dram=0.1, stalls=None, overhead=2000):
    """A launch of `cycles` (first block to last) and a fixed cost of `overhead` cycles."""
    stalls = stalls or {"s0.none": 50, "s0.scoreboard": 30, "s0.no_warp": 20}
    return {"kernel": kernel, "cycles": cycles,
            "gpu": {"cycles": stat(cycles, "cycle"), "launch_overhead_cycles": stat(overhead, "cycle"),
                    "cycles_with_launch": stat(cycles + overhead, "cycle"),
                    "warp_instrs": stat(1000), "blocks": stat(blocks),
                    "num_sms": stat(132),
                    "sm": {"issue": {"stall_cycles": stat(stalls, "cycle")}, "fetch": {"l1i_misses": stat(0)}},
                    "l1d": {"accesses": stat(100), "accesses_by_kind": stat({"global_load": 100, "local_load": 0})},
                    "mem": {"dram": {"bandwidth_utilisation": stat(dram, "ratio")}}}}


CONFIG = "name: h100\ngpu:\n  num_sms: 132\n  clock_mhz: 2000.0\n  launch_overhead_ns: 1000.0\n"


def fake_rfsim(folder, config_text):
    """An `rfsim` whose `config` prints config_text (what `rfsim config` resolves)."""
    path, text = os.path.join(folder, "rfsim"), os.path.join(folder, "resolved.yaml")
    with open(text, "w", encoding="utf-8") as f:
        f.write(config_text)
    with open(path, "w", encoding="utf-8") as f:
        f.write(f"#!/bin/sh\n[ \"$1\" = config ] && cat '{text}' && exit 0\nexit 3\n")
    os.chmod(path, 0o755)
    return path


def write_run(out, tag, workload, launches, sets, size="small", code="", passed=True):
    d = os.path.join(out, "runs", tag, workload)
    os.makedirs(d, exist_ok=True)
    req = {"config": "h100", "sets": sets, "size": size, "code": code, "workloads": [workload], "timing": True}
    doc = {"schema": "rfsim-stats/2", "run": {"config": "h100", "request": req},
           "workloads": {workload: {"passed": passed, "launches": launches}}}
    with open(os.path.join(d, "stats.json"), "w", encoding="utf-8") as f:
        json.dump(doc, f)
    with open(os.path.join(d, "config.yaml"), "w", encoding="utf-8") as f:
        f.write(CONFIG)


def hw_entry(workload, kernels, sms=132, size="small"):
    total = sum(k[2] for k in kernels.values())
    return {"workload": workload, "passed": True, "size": size, "sms": sms, "kernel_ms_median": total,
            "device": "Test GPU (sm_90, 132 SMs, 2000 MHz)",
            "kernels": {name: {"launches": n, "ms_median": ms, "regs": 10, "local_bytes": 0}
                        for name, (_, n, ms) in kernels.items()}}


class MathsTest(unittest.TestCase):
    def test_ms_to_cycles(self):
        self.assertAlmostEqual(correlate.ms_to_cycles(1.0, 1980.0), 1980000.0)
        self.assertAlmostEqual(correlate.ms_to_cycles(0.0101, 1980.0), 19998.0)

    def test_pearson(self):
        self.assertAlmostEqual(correlate.pearson([1, 2, 3], [2, 4, 6]), 1.0)
        self.assertAlmostEqual(correlate.pearson([1, 2, 3], [3, 2, 1]), -1.0)
        # x = 1,2,3,4 and y = 2,1,4,3: sxy = 3, sxx = syy = 5, r = 0.6
        self.assertAlmostEqual(correlate.pearson([1, 2, 3, 4], [2, 1, 4, 3]), 0.6)
        self.assertIsNone(correlate.pearson([1, 1], [2, 3]))
        self.assertIsNone(correlate.pearson([1], [1]))

    def test_mape(self):
        self.assertAlmostEqual(correlate.mape([110, 90], [100, 100]), 10.0)
        self.assertAlmostEqual(correlate.mape([300, 50], [100, 100]), 125.0)  # (200 % + 50 %) / 2

    def test_figures(self):
        f = correlate.figures([(10, 10), (200, 100), (1000, 1000), (0, 5)])  # the 0 is left out
        self.assertEqual(f["kernels"], 3)
        self.assertAlmostEqual(f["mape_pct"], 100.0 / 3)
        self.assertAlmostEqual(f["geomean_ratio"], 2 ** (1 / 3))
        logs = [1, math.log10(200), 3], [1, 2, 3]
        self.assertAlmostEqual(f["pearson_r_log"], correlate.pearson(*logs))

    def test_launch_cycles(self):
        self.assertEqual(correlate.launch_cycles(launch("k", 5000, overhead=2000)), 7000)
        old = launch("k", 5000)
        del old["gpu"]["cycles_with_launch"]  # a run from before the launch cost: its cycles alone
        self.assertEqual(correlate.launch_cycles(old), 5000)

    def test_ratio_check(self):
        self.assertEqual(correlate.ratio_check(1.5, 1.4), (True, True))     # 7 % apart
        self.assertEqual(correlate.ratio_check(2.0, 1.4), (True, False))    # 43 % apart
        self.assertEqual(correlate.ratio_check(0.9, 1.2), (False, False))   # opposite sides of 1
        self.assertEqual(correlate.ratio_check(1.01, 0.99), (True, True))   # both "no change"


class ScriptTest(unittest.TestCase):
    def test_no_run_on_crafted_results(self):
        with tempfile.TemporaryDirectory() as tmp:
            hw_dir = os.path.join(tmp, "hw")
            os.makedirs(hw_dir)
            out = os.path.join(tmp, "out")
            # At 2000 MHz, 0.01 ms = 20 000 cycles; each model launch costs 2 000 cycles (1 us)
            # besides its own. k1: model 22 000 + 2 000 (+20 %), k2: 2 x (5 000 + 2 000) against
            # 40 000 (-65 %, two launches of 10 us: not the launch floor), k3: 2 000 + 2 000
            # against a 4 us launch (-50 %, launch-overhead-bound).
            hw = [hw_entry("wa", {"k1": (0, 1, 0.01), "k2": (0, 2, 0.02)}),
                  hw_entry("wb", {"k3": (0, 1, 0.004)})]
            with open(os.path.join(hw_dir, "all-small.json"), "w", encoding="utf-8") as f:
                json.dump(hw, f)
            write_run(out, "small-allsm", "wa", [launch("k1", 22000), launch("k2", 5000), launch("k2", 5000)], [])
            write_run(out, "small-allsm", "wb", [launch("k3", 2000, blocks=4)], [])
            # Inlining on 8 SMs: GPU 2.0, model (20 000 + 2 000) / (8 000 + 2 000) = 2.2 (same sign,
            # 10 % apart).
            for name, ms in (("calls-small-8sm.json", 0.02), ("calls-small-8sm-inlined.json", 0.01)):
                with open(os.path.join(hw_dir, name), "w", encoding="utf-8") as f:
                    json.dump([hw_entry("wc", {"kc": (0, 1, ms)}, sms=8)], f)
            write_run(out, "small-8sm", "wc", [launch("kc", 20000)], ["gpu.num_sms=8"])
            write_run(out, "small-8sm-inlined", "wc", [launch("kc", 8000)], ["gpu.num_sms=8"], code="inlined")

            p = subprocess.run([sys.executable, SCRIPT, "--hw", os.path.join(hw_dir, "all-small.json"),
                                "-o", out, "--no-run", "-c", "h100", "--rfsim", fake_rfsim(tmp, CONFIG)],
                               capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, p.stderr)
            res = json.loads(read(os.path.join(out, "correlation.json")))
            self.assertEqual(res["clock_mhz"], 2000.0)
            f = res["figures"]
            self.assertEqual(f["kernels"], 3)
            self.assertAlmostEqual(f["mape_pct"], (20 + 65 + 50) / 3)
            rows = {r["kernel"]: r for r in res["kernels"]}
            self.assertAlmostEqual(rows["k2"]["hw_cycles"], 40000.0)
            self.assertEqual(rows["k2"]["model_cycles"], 14000)
            self.assertEqual(rows["k2"]["model_kernel_cycles"], 10000)
            self.assertEqual([r["kernel"] for r in res["worst"]][-1], "k1")
            # The shortest launch of the file is k3's 4 us; k3 took 1 us and its launch 1 us in the model.
            self.assertAlmostEqual(res["launch_floor_us"], 4.0)
            self.assertAlmostEqual(res["model_launch_overhead_us"], 1.0)
            self.assertIn("launch-overhead-bound: 4.0 us per launch on the GPU (its floor: 4.0), 1.0 + 1.0 in the "
                          "model (launch cost + kernel)", rows["k3"]["diagnosis"])
            # Without the launch cost: 22 000, 10 000 and 2 000 cycles (+10, -75, -75 %).
            self.assertAlmostEqual(res["figures_kernel_only"]["mape_pct"], (10 + 75 + 75) / 3)
            self.assertNotIn("launch-overhead-bound", rows["k2"]["diagnosis"])
            self.assertIn("under-filled", rows["k3"]["diagnosis"])
            self.assertIn("dominant stall scoreboard", rows["k1"]["diagnosis"])
            inl = res["inlining"]
            self.assertEqual(len(inl), 1)
            self.assertAlmostEqual(inl[0]["hw_ratio"], 2.0)
            self.assertAlmostEqual(inl[0]["model_ratio"], 2.2)
            self.assertTrue(inl[0]["same_sign"] and inl[0]["within_15pct"])
            self.assertIn("| 3 |", read(os.path.join(out, "correlation.md")))
            if os.path.exists("/usr/bin/python3") and sys.executable == "/usr/bin/python3":
                self.assertGreater(os.path.getsize(os.path.join(out, "correlation.png")), 1000)

    def test_ncu_cycles_replace_event_times(self):
        # --gpu-cycles ncu: the GPU's cycles are ncu's (ncu_kernels.py), not ms x the clock; the
        # launch floor is ncu's shortest launch. k1: 30 000 ncu cycles against the model's
        # 22 000 + 2 000 (-20 %); its event time (0.01 ms: 20 000 cycles) is not used.
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "out")
            e = hw_entry("wa", {"k1": (0, 1, 0.01)})
            e["kernels"]["k1"]["ncu"] = {"launches": 1, "cycles": 30000.0, "ns": 15000.0}
            path = os.path.join(tmp, "ncu.json")
            with open(path, "w", encoding="utf-8") as f:
                json.dump([e, hw_entry("wb", {"k2": (0, 1, 0.01)})], f)
            write_run(out, "small-allsm", "wa", [launch("k1", 22000)], ["dram.clock_mhz=3201"])
            p = subprocess.run([sys.executable, SCRIPT, "--hw", path, "-o", out, "--no-run", "--no-calls",
                                "--gpu-cycles", "ncu", "--set", "dram.clock_mhz=3201", "-c", "h100",
                                "--rfsim", fake_rfsim(tmp, CONFIG)], capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, p.stderr)
            res = json.loads(read(os.path.join(out, "correlation.json")))
            self.assertEqual(res["figures"]["kernels"], 1)  # wb has no ncu figures: left out
            row = res["kernels"][0]
            self.assertEqual(row["hw_cycles"], 30000.0)
            self.assertAlmostEqual(row["error_pct"], -20.0)
            self.assertAlmostEqual(res["launch_floor_us"], 15.0)
            self.assertEqual(res["sets"], ["dram.clock_mhz=3201"])
            self.assertIn("Nsight Compute", read(os.path.join(out, "correlation.md")))

    def test_a_run_of_another_configuration_is_not_reused(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "all-small.json")
            with open(path, "w", encoding="utf-8") as f:
                json.dump([hw_entry("wa", {"k1": (0, 1, 0.01)})], f)
            out = os.path.join(tmp, "out")
            write_run(out, "small-allsm", "wa", [launch("k1", 22000)], [])
            rfsim = fake_rfsim(tmp, CONFIG.replace("2000.0", "1980.0"))
            p = subprocess.run([sys.executable, SCRIPT, "--hw", path, "-o", out, "--no-run", "--no-calls",
                                "--clock-mhz", "2000", "--rfsim", rfsim], capture_output=True, text=True)
            self.assertEqual(p.returncode, 1, p.stderr)
            self.assertIn("wa: not run (--no-run)", p.stdout)

    def test_missing_run_is_listed_and_fails(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "all-small.json")
            with open(path, "w", encoding="utf-8") as f:
                json.dump([hw_entry("wa", {"k1": (0, 1, 0.01)})], f)
            p = subprocess.run([sys.executable, SCRIPT, "--hw", path, "-o", os.path.join(tmp, "out"), "--no-run",
                                "--no-calls", "--clock-mhz", "1980"], capture_output=True, text=True)
            self.assertEqual(p.returncode, 1, p.stderr)
            self.assertIn("wa: not run (--no-run)", p.stdout)

    def test_unknown_workload_is_an_error(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "all-small.json")
            with open(path, "w", encoding="utf-8") as f:
                json.dump([hw_entry("wa", {"k1": (0, 1, 0.01)})], f)
            p = subprocess.run([sys.executable, SCRIPT, "--hw", path, "-w", "nope", "--no-run"],
                               capture_output=True, text=True)
            self.assertEqual(p.returncode, 2)
            self.assertIn("no workload nope", p.stderr)


if __name__ == "__main__":
    unittest.main()
