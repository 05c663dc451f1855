#!/usr/bin/python3
"""rfsim compare --experiment with a real rfsim: a tiny experiment file (saxpy and vecadd x base
and one variant, small inputs) run end to end with its figure script; the runs each experiment
file describes (--dry-run), with --groups, --skip and --set merged over the file; the repository's
experiments/*.yaml all valid; and malformed files refused with the file, line and key named.

    test_experiment.py --rfsim build/rfsim [unittest options]
"""

import argparse
import glob
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
RFSIM = None

TINY = """\
description: a test experiment
configs: v100
workloads: [saxpy, vecadd]
set:
  gpu.num_sms: 2
variants:
  big-l1: l1d.size_kb=64
  ports:
    l1x2: l1d.ports=2
    l1x4: l1d.ports=4
  more:
    l1x4: l1d.ports=4
    inl: "@inlined"
default_groups: more
figures: tests/report/fixtures/figures_probe.py
"""


def read_json(path):
    with open(path) as f:
        return json.load(f)


def rfsim(*args, cwd=REPO):
    return subprocess.run([RFSIM, *args], cwd=cwd, capture_output=True, text=True)


def dry_run(experiment, *args):
    """The run commands rfsim compare --experiment would start, as {(variant, workload): argv}."""
    p = rfsim("compare", "--experiment", experiment, "-o", "/tmp/never-written", "--dry-run", *args)
    assert p.returncode == 0, p.stderr
    runs = {}
    for line in p.stdout.splitlines():
        argv = shlex.split(line)
        out = argv[argv.index("--out") + 1]
        variant, workload = out.split(os.sep)[-2:]
        runs[(variant, workload)] = argv
    return runs


class Experiment(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="rfsim-experiment-")
        self.file = os.path.join(self.tmp, "tiny.yaml")
        with open(self.file, "w") as f:
            f.write(TINY)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def write(self, text, name="bad.yaml"):
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def test_runs_end_to_end(self):
        out = os.path.join(self.tmp, "out")
        p = rfsim("compare", "--experiment", self.file, "--skip", "more", "-j", "2", "-o", out, "--no-report")
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        doc = read_json(os.path.join(out, "compare.json"))
        self.assertEqual([v["name"] for v in doc["variants"]], ["base", "big-l1"])
        self.assertEqual(doc["workloads"], ["saxpy", "vecadd"])
        self.assertEqual(doc["experiment"], os.path.abspath(self.file))
        self.assertTrue(all(r["status"] == "complete" for r in doc["runs"]), doc["runs"])
        for r in doc["runs"]:
            self.assertIn("gpu.num_sms=2", r["command"])
        # The figure script ran on the folder with the binary, and read every run.
        probe = read_json(os.path.join(out, "probe.json"))
        self.assertEqual(probe["passed"], ["base/saxpy", "base/vecadd", "big-l1/saxpy", "big-l1/vecadd"])
        self.assertEqual(os.path.realpath(probe["rfsim"]), os.path.realpath(RFSIM))

    def test_groups_skip_and_set(self):
        variants = lambda runs: sorted({v for v, _ in runs})
        # default_groups: the ungrouped variant and the group `more`.
        self.assertEqual(variants(dry_run(self.file)), ["base", "big-l1", "inl", "l1x4"])
        runs = dry_run(self.file, "--groups", "ports,more", "--skip", "big-l1")
        self.assertEqual(variants(runs), ["base", "inl", "l1x2", "l1x4"])  # l1x4 in both groups: once
        self.assertIn("--code", runs[("inl", "saxpy")])
        # A --set of a key the file sets replaces it in place; -w replaces the workloads.
        runs = dry_run(self.file, "--set", "gpu.num_sms=4", "--set", "l1d.latency=30", "-w", "saxpy")
        argv = runs[("base", "saxpy")]
        sets = [argv[i + 1] for i, a in enumerate(argv) if a == "--set"]
        self.assertEqual(sets, ["gpu.num_sms=4", "l1d.latency=30"])
        self.assertEqual({w for _, w in runs}, {"saxpy"})

    def test_repository_experiments_are_valid(self):
        files = sorted(glob.glob(os.path.join(REPO, "experiments", "*.yaml")))
        self.assertTrue(files)
        for f in files:
            with self.subTest(f=os.path.basename(f)):
                self.assertTrue(dry_run(f))
        # By name, as the repro scripts' users may write it.
        self.assertTrue(dry_run("main"))

    def test_malformed_files_name_file_and_key(self):
        cases = [
            (TINY.replace("description:", "descripton:"), ":1: descripton: unknown key"),
            (TINY.replace("  big-l1: l1d.size_kb=64", "  big-l1: [l1d.size_kb=64]"), ":7: variants.big-l1: expected a text"),
            (TINY.replace("l1d.ports=2", "l1d.ports"), ":9: variants.ports.l1x2: 'l1d.ports' is neither"),
            (TINY.replace("big-l1: l1d.size_kb=64", "big-l1: l1d.size_kb=64\n  big-l1: l1d.size_kb=32"),
             ":8: variants.big-l1: defined twice (first at line 7)"),
            (TINY.replace("default_groups: more", "default_groups: less"), ":14: default_groups: 'less' is not a group"),
            (TINY.replace("workloads: [saxpy, vecadd]\n", ""), ": workloads: missing"),
            (TINY.replace("gpu.num_sms: 2", "gpu.num_sms: [2]"), ":5: set.gpu.num_sms: expected a text"),
            (TINY.replace("figures: tests/", "figures: nowhere/"), ":15: figures: nowhere/"),
            (TINY + "bad: [unclosed\n", "not valid YAML"),
        ]
        for text, expected in cases:
            with self.subTest(expected=expected):
                path = self.write(text)
                p = rfsim("compare", "--experiment", path, "-o", os.path.join(self.tmp, "out"), "--dry-run")
                self.assertNotEqual(p.returncode, 0)
                self.assertIn(path, p.stderr)
                self.assertIn(path + expected if expected.startswith(":") else expected, p.stderr)
        # One name in two groups with two specs: an error only when both groups are chosen.
        path = self.write(TINY.replace("    l1x4: l1d.ports=4\n  more", "    l1x4: l1d.ports=8\n  more"))
        self.assertTrue(dry_run(path))
        p = rfsim("compare", "--experiment", path, "--groups", "ports,more", "-o", self.tmp, "--dry-run")
        self.assertNotEqual(p.returncode, 0)
        self.assertIn(path + ":12: variants.more.l1x4: another spec than at line 10 (variants.ports.l1x4)", p.stderr)
        p = rfsim("compare", "--experiment", self.file, "--groups", "nope", "-o", self.tmp, "--dry-run")
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("--groups nope", p.stderr)
        p = rfsim("compare", "--experiment", "no-such-experiment", "-o", self.tmp)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("experiments: ", p.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "out")))

    def test_one_parser_one_name(self):
        # compare's and report's options are CLI11's, named as run's.
        p = rfsim("compare", "--help")
        self.assertEqual(p.returncode, 0)
        for opt in ("--experiment", "-w,--workloads", "-c,--configs", "-o,--out", "-j,--jobs"):
            self.assertIn(opt, p.stdout)
        self.assertIn("-w,--workloads", rfsim("run", "--help").stdout)
        self.assertIn("--partial", rfsim("report", "--help").stdout)
        p = rfsim("compare", "-w", "saxpy", "-o", self.tmp, "--jobs", "0")
        self.assertNotEqual(p.returncode, 0)
        p = rfsim("run", "-q", "--workloads", "saxpy", "-o", os.path.join(self.tmp, "run"))
        self.assertEqual(p.returncode, 0, p.stderr)
        p = rfsim("run", "-q", "--workload", "saxpy", "-o", os.path.join(self.tmp, "run2"))
        self.assertEqual(p.returncode, 0, p.stderr)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--rfsim", required=True)
    args, rest = ap.parse_known_args()
    RFSIM = os.path.abspath(args.rfsim)
    unittest.main(argv=[sys.argv[0]] + rest)
