#!/usr/bin/python3
"""A resumed rfsim compare checked against what was asked, one writer per output folder, and a
compare stopped by a signal (scripts/compare.py with a real rfsim, saxpy and vecadd on one SM).

    test_compare_resume.py --rfsim build/rfsim [unittest options]
"""

import argparse
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
ONE_SM = ["--set", "gpu.num_sms=1"]


def compare(out, *args, cwd=None):
    cmd = [sys.executable, COMPARE, "--rfsim", RFSIM, "-j", "2", "-o", out, *ONE_SM, *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=cwd)


def manifests(out):
    """{run folder: manifest mtime} of the complete runs."""
    found = {}
    for root, _, files in os.walk(os.path.join(out, "runs")):
        if "manifest.json" in files and not root.endswith(".partial"):
            found[os.path.relpath(root, out)] = os.stat(os.path.join(root, "manifest.json")).st_mtime_ns
    return found


def read(out, name):
    with open(os.path.join(out, name), encoding="utf-8") as f:
        return json.load(f) if name.endswith(".json") else f.read()


def config_value(out, run, section, key):
    """A key of a run's config.yaml (section: key: value lines)."""
    inside = False
    for line in read(out, os.path.join(run, "config.yaml")).splitlines():
        if not line.startswith(" "):
            inside = line.startswith(section + ":")
        elif inside and line.strip().startswith(key + ":"):
            return line.split(":", 1)[1].split("#")[0].strip()
    return None


class Resume(unittest.TestCase):
    def setUp(self):
        self.out = tempfile.mkdtemp(prefix="rfsim-compare-resume-")

    def tearDown(self):
        shutil.rmtree(self.out, ignore_errors=True)

    def test_redefined_variants_run_again_or_are_refused(self):
        before = ["-w", "saxpy,vecadd", "--variant", "cars:+cars", "--variant", "big-l1:l1d.size_kb=64"]
        first = compare(self.out, *before, "--no-report")
        self.assertEqual(first.returncode, 0, first.stderr)
        done = manifests(self.out)
        self.assertEqual(len(done), 6)

        # The same names, new definitions: those runs run again, and compare says so per variant.
        again = ["-w", "saxpy,vecadd", "--variant", "cars:+cars,sm.scheduler=lrr", "--variant", "big-l1:l1d.size_kb=128"]
        rerun = compare(self.out, *again)
        self.assertEqual(rerun.returncode, 0, rerun.stderr)
        self.assertIn("compare: 6 runs (4 run, 4 of them again, 2 already complete, 0 failed)", rerun.stdout)
        said = [x for x in rerun.stderr.splitlines() if x.startswith("compare: run again:")]
        self.assertEqual(len(said), 2, rerun.stderr)
        self.assertIn("v100/cars (2 runs: saxpy, vecadd)", said[0])
        self.assertIn("sm.scheduler: gto in the run, lrr asked", said[0])
        self.assertIn("v100/big-l1 (2 runs: saxpy, vecadd)", said[1])
        self.assertIn("l1d.size_kb: 64 in the run, 128 asked", said[1])
        after = manifests(self.out)
        for run, mtime in done.items():
            self.assertEqual(after[run] == mtime, "/base/" in run, run)
        self.assertEqual(config_value(self.out, "runs/v100/cars/saxpy", "sm", "scheduler"), "lrr")
        self.assertEqual(config_value(self.out, "runs/v100/big-l1/vecadd", "l1d", "size_kb"), "128")
        doc = read(self.out, "compare.json")
        for r in doc["runs"]:
            self.assertEqual(r["request"]["sets"], ["gpu.num_sms=1"] + {"base": [], "cars": ["sm.scheduler=lrr"],
                                                                         "big-l1": ["l1d.size_kb=128"]}[r["variant"]])
        md = read(self.out, "report.md")
        self.assertIn("| cars | cars | sm.scheduler=lrr |", md)
        self.assertIn("| big-l1 | none | l1d.size_kb=128 |", md)

        # --no-rerun: the old definitions are refused with the differences, and nothing is touched.
        listed = read(self.out, "compare.json")
        refused = compare(self.out, *before, "--no-rerun")
        self.assertEqual(refused.returncode, 1, refused.stderr)
        lines = [x for x in refused.stderr.splitlines() if x.startswith("compare: differs:")]
        self.assertEqual(len(lines), 2, refused.stderr)
        self.assertIn("sm.scheduler: lrr in the run, gto asked", lines[0])
        self.assertIn("l1d.size_kb: 128 in the run, 64 asked", lines[1])
        self.assertEqual(manifests(self.out), after, "--no-rerun touches no run")
        self.assertEqual(read(self.out, "compare.json"), listed)

        # The same request again: everything is reused.
        same = compare(self.out, *again, "--no-rerun", "--no-report")
        self.assertEqual(same.returncode, 0, same.stderr)
        self.assertIn("(0 run, 6 already complete, 0 failed)", same.stdout)

    def test_size_and_older_runs_are_checked(self):
        first = compare(self.out, "-w", "vecadd", "--large")
        self.assertEqual(first.returncode, 0, first.stderr)
        self.assertIn("large inputs", read(self.out, "report.md").split("\n## ")[0])
        small = compare(self.out, "-w", "vecadd")
        self.assertEqual(small.returncode, 0, small.stderr)
        # The report says small inputs, and the run it shows is a small one.
        self.assertIn("small inputs", read(self.out, "report.md").split("\n## ")[0])
        self.assertEqual(read(self.out, "runs/v100/base/vecadd/stats.json")["run"]["size"], "small",
                         "a report titled small inputs shows a large-input run")
        self.assertIn("(1 run, 1 of them again, 0 already complete, 0 failed)", small.stdout)
        self.assertIn("v100/base (1 run: vecadd): size: large in the run, small asked", small.stderr)
        self.assertIn("# rfsim comparison: small inputs, v100", read(self.out, "report.md"))
        refused = compare(self.out, "-w", "vecadd", "--large", "--no-rerun", "--no-report")
        self.assertEqual(refused.returncode, 1)
        self.assertIn("size: small in the run, large asked", refused.stderr)

        # A run without the record (an older rfsim wrote it) is not trusted.
        path = os.path.join(self.out, "runs/v100/base/vecadd/stats.json")
        stats = read(self.out, "runs/v100/base/vecadd/stats.json")
        del stats["run"]["request"]
        with open(path, "w") as f:
            json.dump(stats, f)
        old = compare(self.out, "-w", "vecadd", "--no-report", "--no-rerun")
        self.assertEqual(old.returncode, 1)
        self.assertIn("no record of what it was asked", old.stderr)


    def test_application_command_line_is_checked(self):
        nvcc = shutil.which("nvcc") or ("/usr/local/cuda/bin/nvcc" if os.path.exists("/usr/local/cuda/bin/nvcc")
                                        else None)
        if not nvcc:
            self.skipTest("nvcc not found: no CUDA application to run under rfsim exec")
        app = os.path.join(self.out, "app")
        subprocess.run([nvcc, "-cudart", "shared", "-gencode", "arch=compute_75,code=compute_75",
                        os.path.join(REPO, "tests", "cudart", "apps", "args.cu"), "-o", app], check=True)
        dir_ = os.path.join(self.out, "cmp")
        # args checks that the GPU has argv[1] SMs: "1" and "01" both pass, as two command lines.
        first = compare(dir_, "--app", "args: ./app 1", "--no-report", cwd=self.out)
        self.assertEqual(first.returncode, 0, first.stderr)
        self.assertEqual(read(dir_, "runs/v100/base/args/stats.json")["run"]["request"]["argv"], ["./app", "1"])
        again = compare(dir_, "--app", "args: ./app 01", "--no-report", cwd=self.out)
        self.assertEqual(again.returncode, 0, again.stderr)
        self.assertIn("v100/base (1 run: args): command line: ./app 1 in the run, ./app 01 asked", again.stderr)
        self.assertEqual(read(dir_, "runs/v100/base/args/stats.json")["run"]["request"]["argv"], ["./app", "01"])
        self.assertFalse(os.path.exists(os.path.join(dir_, "runs", "v100", "base", "args.lock")))


class OneWriter(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="rfsim-compare-lock-")
        self.out = os.path.join(self.tmp, "out")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def hold(self):
        """Another process holding the folder's lock, as compare or rfsim run would."""
        holder = subprocess.Popen(
            [sys.executable, "-c",
             "import fcntl, os, sys, time\n"
             "fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT)\n"
             "fcntl.flock(fd, fcntl.LOCK_EX)\n"
             "os.write(fd, f'{os.getpid()}\\n'.encode())\n"
             "print('held', flush=True)\n"
             "time.sleep(60)\n", self.out + ".lock"], stdout=subprocess.PIPE, text=True)
        self.assertEqual(holder.stdout.readline().strip(), "held")
        self.addCleanup(holder.stdout.close)
        self.addCleanup(holder.wait)
        self.addCleanup(holder.kill)
        return holder

    def test_second_compare_or_run_stops_at_once(self):
        holder = self.hold()
        start = time.monotonic()
        p = compare(self.out, "-w", "saxpy")
        self.assertEqual(p.returncode, 1)
        self.assertIn(f"{self.out}: in use by process {holder.pid}", p.stderr)
        self.assertFalse(os.path.exists(self.out), "the second compare touches nothing")
        r = subprocess.run([RFSIM, "run", "-q", "-w", "saxpy", "--out", self.out], capture_output=True, text=True)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn(f"in use by process {holder.pid}", r.stderr)
        self.assertFalse(os.path.exists(self.out) or os.path.exists(self.out + ".partial"))
        e = subprocess.run([RFSIM, "exec", "-q", "--out", self.out, "--", "/bin/true"], capture_output=True, text=True)
        self.assertNotEqual(e.returncode, 0)
        self.assertIn(f"in use by process {holder.pid}", e.stderr)
        self.assertLess(time.monotonic() - start, 20)
        holder.kill()
        holder.wait()
        # Released by the operating system with its holder: no stale lock.
        p = compare(self.out, "-w", "saxpy", "--no-report")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertFalse(os.path.exists(self.out + ".lock"), "a normal release removes the lock file")

    def test_two_compares_into_one_folder(self):
        cmd = [sys.executable, COMPARE, "--rfsim", RFSIM, "-j", "2", "-o", self.out, *ONE_SM, "-w",
               "saxpy,vecadd", "--large", "--no-report"]
        first = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 30
        while not os.path.exists(os.path.join(self.out, "runs")) and time.monotonic() < deadline:
            time.sleep(0.01)
        second = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        stdout, stderr = first.communicate(timeout=300)
        self.assertEqual(first.returncode, 0, stderr)
        self.assertEqual(second.returncode, 1, second.stderr)
        self.assertIn(f"in use by process {first.pid}", second.stderr)
        doc = read(self.out, "compare.json")
        self.assertTrue(doc["complete"])
        self.assertEqual(len(manifests(self.out)), 2)


class Interrupted(unittest.TestCase):
    def setUp(self):
        self.out = tempfile.mkdtemp(prefix="rfsim-compare-signal-")

    def tearDown(self):
        shutil.rmtree(self.out, ignore_errors=True)

    def test_sigint_leaves_compare_json_consistent_with_the_disk(self):
        cmd = [sys.executable, COMPARE, "--rfsim", RFSIM, "-j", "1", "-o", self.out, *ONE_SM, "-w",
               "vecadd,saxpy@large,vecadd@large", "--no-report"]
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        while not manifests(self.out) and p.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.3)  # saxpy@large is under way
        self.assertIsNone(p.poll(), "compare ended before it could be stopped")
        p.send_signal(signal.SIGINT)
        _, stderr = p.communicate(timeout=60)
        self.assertEqual(p.returncode, 130, stderr)
        self.assertIn("stopped by SIGINT", stderr)
        doc = read(self.out, "compare.json")
        self.assertFalse(doc["complete"])
        done = manifests(self.out)
        for r in doc["runs"]:
            self.assertEqual(r["status"] == "complete", r["dir"] in done, r)
        stopped = [r for r in doc["runs"] if r["status"] == "interrupted"]
        self.assertEqual(len(stopped), 1, doc["runs"])
        self.assertEqual({r["status"] for r in doc["runs"]} - {"complete", "interrupted"}, {"not-run"})
        partial = os.path.join(self.out, stopped[0]["dir"] + ".partial")
        with open(os.path.join(partial, "INCOMPLETE")) as f:
            self.assertTrue(f.read().strip(), "the stopped run says why it is incomplete")
        self.assertFalse(os.path.exists(self.out + ".lock"))
        self.assertFalse(os.path.exists(os.path.join(self.out, stopped[0]["dir"] + ".lock")))


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--rfsim", required=True, help="the rfsim binary")
    args, rest = ap.parse_known_args()
    RFSIM = os.path.abspath(args.rfsim)
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)
