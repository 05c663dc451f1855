#!/usr/bin/python3
"""rfsim_tools.slurm_engine on crafted SLURM answers: fake sacct, scontrol and squeue on the PATH.

The states a real single-node cluster cannot produce in a quick test (TIMEOUT after --time's
minute, OUT_OF_MEMORY, NODE_FAIL, PREEMPTED), sacct's answer where the cluster keeps accounting,
scontrol's where it does not, a result file left by an earlier job, and a job still queued.
"""

import json
import os
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "scripts"))
sys.dont_write_bytecode = True
from rfsim_tools import slurm_engine  # noqa: E402
from rfsim_tools.local_engine import Runner  # noqa: E402

RUNS = ["saxpy", "fib", "bfs", "histogram"]


def fake(bindir, name, stdout, rc=0, stderr=""):
    path = os.path.join(bindir, name)
    with open(path, "w") as f:
        f.write(f"#!/bin/sh\ncat <<'EOF'\n{stdout}\nEOF\necho '{stderr}' >&2\nexit {rc}\n")
    os.chmod(path, 0o755)


class Gather(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="rfsim-slurm-engine-")
        self.bin = os.path.join(self.tmp, "bin")
        os.makedirs(self.bin)
        self.path = os.environ["PATH"]
        os.environ["PATH"] = self.bin + ":" + self.path
        self.out = os.path.join(self.tmp, "out")
        self.runs = [{"config": "v100", "variant": "base", "workload": w, "dir": f"runs/v100/base/{w}",
                      "log": f"logs/v100/base/{w}.log", "status": "not-run", "resumed": False} for w in RUNS]
        self.job = {"job": "7", "runs": [r["dir"] for r in self.runs]}
        os.makedirs(os.path.join(self.out, "runs/v100/base/bfs.partial"))

    def tearDown(self):
        os.environ["PATH"] = self.path
        shutil.rmtree(self.tmp, ignore_errors=True)

    def gather(self):
        slurm_engine.gather(self.job, self.runs, Runner(self.out, None), {})
        return {r["workload"]: r for r in self.runs}

    def test_sacct_states_are_the_reasons(self):
        fake(self.bin, "sacct", "7_0|TIMEOUT|0:0|TimeLimit\n7_1|OUT_OF_MEMORY|0:125|None\n"
                                "7_2|NODE_FAIL|0:0|None\n7_3|PREEMPTED|0:0|None")
        runs = self.gather()
        self.assertEqual(runs["saxpy"]["error"], "SLURM task 7_0: TIMEOUT, TimeLimit, exit code 0:0")
        self.assertEqual(runs["fib"]["error"], "SLURM task 7_1: OUT_OF_MEMORY, exit code 0:125")
        self.assertIn("NODE_FAIL", runs["bfs"]["error"])
        self.assertIn("PREEMPTED", runs["histogram"]["error"])
        self.assertTrue(all(r["status"] == "failed" for r in runs.values()))
        self.assertEqual(runs["saxpy"]["slurm"], {"task": "7_0", "state": "TIMEOUT", "exit": "0:0",
                                                  "reason": "TimeLimit"})
        with open(os.path.join(self.out, "runs/v100/base/bfs.partial/INCOMPLETE")) as f:
            self.assertIn("SLURM task 7_2: NODE_FAIL", f.read())

    def test_scontrol_without_accounting(self):
        fake(self.bin, "sacct", "", rc=1, stderr="Slurm accounting storage is disabled")
        fake(self.bin, "scontrol", "\n".join(
            f"JobId={10 + i} ArrayJobId=7 ArrayTaskId={i} JobState={s} Reason={why} ExitCode=0:{sig}"
            for i, (s, why, sig) in enumerate([("TIMEOUT", "TimeLimit", 0), ("CANCELLED", "JobArrayTaskLimit", 15),
                                               ("COMPLETED", "None", 0), ("PREEMPTED", "None", 0)])))
        runs = self.gather()
        self.assertEqual(runs["saxpy"]["error"], "SLURM task 7_0: TIMEOUT, TimeLimit, exit code 0:0")
        # why it last waited (the array's %N) is not why it ended: left out of the error, kept in the record
        self.assertEqual(runs["fib"]["error"], "SLURM task 7_1: CANCELLED, exit code 0:15")
        self.assertEqual(runs["fib"]["slurm"]["reason"], "JobArrayTaskLimit")
        # COMPLETED without a result file or a complete folder: still not a complete run.
        self.assertEqual(runs["bfs"]["status"], "failed")

    def test_an_earlier_jobs_result_is_not_counted(self):
        fake(self.bin, "sacct", "7_0|CANCELLED by 0|0:15|None")
        os.makedirs(os.path.join(self.out, "logs/v100/base"))
        with open(os.path.join(self.out, "logs/v100/base/saxpy.task.json"), "w") as f:
            json.dump({"task": "6_0", "returncode": 0, "error": "", "run_seconds": 1.0}, f)
        runs = self.gather()
        self.assertEqual(runs["saxpy"]["status"], "failed")
        self.assertIn("CANCELLED by 0", runs["saxpy"]["error"])
        self.assertIsNone(runs["saxpy"]["run_seconds"])

    def test_a_second_compare_refuses_while_the_job_is_queued(self):
        os.makedirs(os.path.join(self.out, "slurm"))
        with open(os.path.join(self.out, slurm_engine.PENDING), "w") as f:
            json.dump(self.job, f)
        fake(self.bin, "squeue", "0 RUNNING\n1 PENDING")
        with self.assertRaisesRegex(slurm_engine.SlurmError, "SLURM job 7 is still running its runs"):
            slurm_engine.check_pending(self.out, False)
        self.assertEqual(slurm_engine.check_pending(self.out, True)["job"], "7")  # --collect waits for it
        fake(self.bin, "squeue", "", rc=1, stderr="slurm_load_jobs error: Invalid job id specified")
        self.assertEqual(slurm_engine.check_pending(self.out, False)["job"], "7")  # gone: the folder is free

    def test_polling_slows_down_on_a_long_job(self):
        self.assertEqual(slurm_engine.poll_interval(0), 1.0)
        self.assertEqual(slurm_engine.poll_interval(3600), 10.0)

    def test_file_system_type(self):
        self.assertNotEqual(slurm_engine.fs_type(self.tmp), "unknown")


if __name__ == "__main__":
    unittest.main(verbosity=2)
