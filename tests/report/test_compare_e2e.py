#!/usr/bin/python3
"""scripts/compare.py end to end with a real rfsim: saxpy and vecadd x base and one override
variant, then a compare stopped by SIGTERM mid-way and a second one that resumes it.

    test_compare_e2e.py --rfsim build/rfsim [--config v100] [unittest options]
"""

import argparse
import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
COMPARE = os.path.join(REPO, "scripts", "compare.py")
RFSIM = None
CONFIG = "v100"
VARIANT = "big-l1:l1d.size_kb=64"
# About a second on the timing model, against a few tens of milliseconds for saxpy and vecadd:
# its runs are still going when the first compare is stopped.
SLOW = "ubench_mem_bandwidth"


def compare(out, workloads, **popen):
    cmd = [sys.executable, COMPARE, "--rfsim", RFSIM, "-w", workloads, "-c", CONFIG,
           "--variant", VARIANT, "-j", "2", "-o", out]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **popen)


def manifests(out):
    """{run folder: manifest mtime} of the complete runs."""
    found = {}
    runs = os.path.join(out, "runs")
    for root, _, files in os.walk(runs):
        if "manifest.json" in files and not root.endswith(".partial"):
            found[os.path.relpath(root, out)] = os.stat(os.path.join(root, "manifest.json")).st_mtime_ns
    return found


def rfsim_processes_under(out):
    """rfsim processes still writing under out (there must be none once compare has exited)."""
    pids = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                args = f.read().split(b"\0")
        except OSError:
            continue
        if any(a.endswith(b"rfsim") for a in args[:1]) and any(a.startswith(out.encode()) for a in args):
            pids.append(int(pid))
    return pids


def read_csv(out):
    with open(os.path.join(out, "compare.csv"), newline="") as f:
        return list(csv.DictReader(f))


class CompareEndToEnd(unittest.TestCase):
    def setUp(self):
        self.out = tempfile.mkdtemp(prefix="rfsim-compare-e2e-")

    def tearDown(self):
        shutil.rmtree(self.out, ignore_errors=True)

    def test_two_workloads_two_variants(self):
        p = compare(self.out, "saxpy,vecadd")
        stdout, stderr = p.communicate(timeout=120)
        self.assertEqual(p.returncode, 0, stderr)
        self.assertIn("compare: 4 runs (4 run, 0 already complete, 0 failed)", stdout)
        rows = read_csv(self.out)
        self.assertEqual(len(rows), 4, "one row per workload x variant")
        self.assertEqual({(r["variant"], r["workload"]) for r in rows},
                         {(v, w) for v in ("base", "big-l1") for w in ("saxpy", "vecadd")})
        for r in rows:
            self.assertEqual(r["status"], "complete", r)
            self.assertEqual(r["passed"], "true", r)
            self.assertGreater(int(r["cycles"]), 0, r)
            self.assertGreater(int(r["warp_instrs"]), 0, r)
            self.assertGreater(float(r["ipc"]), 0, r)
            self.assertGreater(float(r["sim_time_us"]), 0, r)
            self.assertGreater(float(r["speedup"]), 0, r)
            if r["variant"] == "base":
                self.assertEqual(float(r["speedup"]), 1.0, r)
            if r.get("energy.total"):  # a build with the energy model: its parts add up to its total
                parts = sum(float(v) for k, v in r.items() if k.startswith(("energy.dynamic.", "energy.static.")) and v)
                self.assertAlmostEqual(parts / float(r["energy.total"]), 1.0, places=6, msg=r)
        with open(os.path.join(self.out, "compare.json")) as f:
            doc = json.load(f)
        self.assertTrue(doc["complete"])
        self.assertEqual([v["name"] for v in doc["variants"]], ["base", "big-l1"])
        self.assertEqual(doc["variants"][1]["overrides"], ["l1d.size_kb=64"])
        for run in doc["runs"]:
            self.assertIn("--timing", run["command"])
            self.assertEqual("--set" in run["command"], run["variant"] == "big-l1")
            self.assertNotIn("--mech", run["command"], "no mechanism in these variants")
        self.assertEqual(doc["summary"][os.path.splitext(os.path.basename(CONFIG))[0]]["base"]["geomean_speedup"],
                         1.0)
        for name in ("report.md", "report.html", "plots/speedup.png"):
            self.assertTrue(os.path.isfile(os.path.join(self.out, name)), name)

    def test_stopped_compare_resumes(self):
        workloads = f"saxpy,vecadd,{SLOW}"
        p = compare(self.out, workloads)
        deadline = time.monotonic() + 60
        while not manifests(self.out) and p.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        if p.poll() is not None:
            self.fail(f"the first compare ended (exit {p.returncode}) before it could be stopped: "
                      f"{p.communicate()[1]}")
        p.send_signal(signal.SIGTERM)
        p.communicate(timeout=30)
        self.assertEqual(p.returncode, 128 + signal.SIGTERM, "a stopped compare does not report success")
        with open(os.path.join(self.out, "compare.json")) as f:
            stopped = json.load(f)
        self.assertFalse(stopped["complete"], "compare.json says the comparison is not complete")
        for _ in range(200):  # its rfsim processes end with it
            if not rfsim_processes_under(self.out):
                break
            time.sleep(0.01)
        self.assertEqual(rfsim_processes_under(self.out), [], "rfsim processes outlived compare")
        done = manifests(self.out)
        self.assertGreaterEqual(len(done), 1)
        for r in stopped["runs"]:  # as the disk has them
            self.assertEqual(r["status"] == "complete", r["dir"] in done, r)
        self.assertLess(len(done), 6, "some runs must still have been missing when it stopped")

        p = compare(self.out, workloads)
        stdout, stderr = p.communicate(timeout=120)
        self.assertEqual(p.returncode, 0, stderr)
        self.assertIn(f"compare: 6 runs ({6 - len(done)} run, {len(done)} already complete, 0 failed)", stdout)
        after = manifests(self.out)
        self.assertEqual(len(after), 6)
        for run, mtime in done.items():
            self.assertEqual(after[run], mtime, f"{run} was complete and must not run again")
        with open(os.path.join(self.out, "compare.json")) as f:
            doc = json.load(f)
        self.assertTrue(doc["complete"])
        self.assertEqual({r["dir"] for r in doc["runs"] if r["resumed"]}, set(done))
        rows = read_csv(self.out)
        self.assertEqual(len(rows), 6)
        for r in rows:
            self.assertEqual(r["status"], "complete", r)
            if r["variant"] == "base":
                self.assertEqual(float(r["speedup"]), 1.0, r)
        leftovers = [d for d in os.listdir(os.path.join(self.out, "runs", os.path.basename(CONFIG).split(".")[0],
                                                        "base")) if d.endswith(".partial")]
        self.assertEqual(leftovers, [], "stale .partial folders are cleared")

    def test_code_variant_runs_another_compilation(self):
        # @inlined: raytrace's fully inlined code (rfsim run --code inlined) beside its own.
        cmd = [sys.executable, COMPARE, "--rfsim", RFSIM, "-w", "raytrace", "-c", CONFIG,
               "--variant", "inlined:@inlined", "-j", "2", "--no-report", "-o", self.out]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        self.assertEqual(done.returncode, 0, done.stderr)
        with open(os.path.join(self.out, "compare.json")) as f:
            doc = json.load(f)
        self.assertEqual(doc["variants"][1]["code"], "inlined")
        for run in doc["runs"]:
            self.assertEqual("--code" in run["command"], run["variant"] == "inlined")
        conf = os.path.basename(CONFIG).split(".")[0]
        with open(os.path.join(self.out, "runs", conf, "inlined", "raytrace", "checks.json")) as f:
            self.assertEqual(json.load(f)["raytrace"]["ptx"], "workloads/raytrace/raytrace.inlined.ptx")
        rows = read_csv(self.out)
        self.assertEqual({r["variant"] for r in rows}, {"base", "inlined"})
        self.assertTrue(all(r["passed"] in ("True", "true", "1") for r in rows), rows)
        # A code name that cannot be one is refused before anything runs.
        bad = subprocess.run([sys.executable, COMPARE, "--rfsim", RFSIM, "-w", "raytrace", "--variant", "x:@Bad",
                              "-o", os.path.join(self.out, "bad")], capture_output=True, text=True)
        self.assertNotEqual(bad.returncode, 0)
        self.assertIn("is not @code", bad.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.out, "bad")))


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--rfsim", required=True, help="the rfsim binary")
    ap.add_argument("--config", default=CONFIG, help="configuration (default v100)")
    args, rest = ap.parse_known_args()
    RFSIM = os.path.abspath(args.rfsim)
    CONFIG = os.path.abspath(args.config) if os.path.isfile(args.config) else args.config
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)
