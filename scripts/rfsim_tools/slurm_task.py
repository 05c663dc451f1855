#!/usr/bin/python3
"""One task of rfsim compare's SLURM job array: its `rfsim run`s, one after the other (usually one;
--runs-per-task N batches short runs; rfsim_tools/slurm_engine.py).

    slurm_task.py DIR/slurm/<submission>/tasks.json     (the task is $SLURM_ARRAY_TASK_ID)

It writes only the run's own files: its folder (rfsim does), its log, and beside the log
<workload>.task.json with the task's id, rfsim's exit status, its last stderr line and the run's
seconds. It refuses to run when the rfsim binary or a configuration file is not the one submitted
(another build on the shared file system since): exit 3, with the reason in the result file.
"""

import json
import os
import shlex
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from rfsim_tools.common import sha256, write_atomic  # noqa: E402


def changed(doc):
    """Why the binary or a configuration file is not the one submitted, or None."""
    for path, want in [(doc["rfsim"], doc["sha256"])] + list(doc["config_files"].items()):
        try:
            have = sha256(path)
        except OSError as e:
            return f"{path}: cannot read it on this node: {e.strerror}"
        if have != want:
            return (f"{path} changed since the job was submitted (sha256 {want[:12]} submitted, {have[:12]} here): "
                    "this task does not run it; run the compare again to submit the new one")
    return None


def run(doc, t, task, timeout):
    """One rfsim run of the task; its result file beside its log. Returns rfsim's exit status."""
    final = os.path.join(doc["out"], t["dir"])
    log = os.path.join(doc["out"], t["log"])
    result_file = log[:-len(".log")] + ".task.json"
    os.makedirs(os.path.dirname(log), exist_ok=True)
    os.makedirs(os.path.dirname(final), exist_ok=True)
    result = {"task": task, "host": os.uname().nodename}
    why = changed(doc)
    if why:
        result.update(returncode=None, error=why)
        write_atomic(result_file, json.dumps(result, indent=1) + "\n")
        print(f"rfsim compare task {task}: error: {why}", file=sys.stderr)
        return 3
    cmd = list(t["command"])
    if os.path.exists(final):
        cmd.insert(cmd.index("--") if "--" in cmd else len(cmd), "--overwrite")
    start = time.monotonic()
    p = subprocess.Popen(cmd, cwd=t["cwd"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         errors="replace")
    try:
        stdout, stderr = p.communicate(timeout=timeout)
        timed_out = False
    except subprocess.TimeoutExpired:
        p.kill()
        stdout, stderr = p.communicate()
        timed_out = True
    with open(log, "w") as f:
        f.write(f"$ {shlex.join(cmd)}\n{stdout}{stderr}")
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    error = lines[-1] if lines else (f"killed by signal {-p.returncode}" if p.returncode < 0
                                     else f"exit status {p.returncode}" if p.returncode else "")
    if timed_out:
        error = f"stopped after --timeout {timeout:g} s"
    result.update(returncode=p.returncode, error=error, timed_out=timed_out,
                  run_seconds=round(time.monotonic() - start, 3))
    write_atomic(result_file, json.dumps(result, indent=1) + "\n")
    return 1 if timed_out else (p.returncode if 0 <= p.returncode < 256 else 1)


def main(argv):
    with open(argv[1]) as f:
        doc = json.load(f)
    index = int(os.environ["SLURM_ARRAY_TASK_ID"])
    task = f"{os.environ['SLURM_ARRAY_JOB_ID']}_{index}"
    per = doc.get("runs_per_task", 1)
    status = 0
    for t in doc["runs"][index * per:(index + 1) * per]:  # a batch of short runs, one after the other
        status = run(doc, t, task, doc.get("timeout")) or status
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
