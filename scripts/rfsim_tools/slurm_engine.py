"""rfsim compare's SLURM engine: the runs as one job array, one task per run (docs/sweep.md).

compare plans the runs and checks the folder as with the local engine; the runs it would start go
to `sbatch` as an array. Each task (rfsim_tools/slurm_task.py) runs one `rfsim run` into its own
folder, writes its log and a result file beside the log, and refuses to run a binary other than
the one submitted. compare waits (progress from `squeue`), then builds the runs' records from the
disk, and for a task that wrote no result (killed for time or memory, cancelled, preempted, its
node failed) from SLURM's state of it (`sacct`, or `scontrol show job` on a cluster without
accounting). DIR/slurm/pending.json records a submitted job until compare has collected it: with
--detach compare returns after submitting, and `rfsim compare --collect DIR` finishes.
"""

import datetime
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time

from .common import InputError, read_json, sha256, write_atomic
from .local_engine import REPO, mark_incomplete

PENDING = os.path.join("slurm", "pending.json")
# The states of a task SLURM ended (sacct and scontrol spell them the same).
KILLED = ("CANCELLED", "TIMEOUT", "OUT_OF_MEMORY", "NODE_FAIL", "PREEMPTED", "BOOT_FAIL", "DEADLINE")
# The reasons that say why a task ended; the others (JobArrayTaskLimit, Priority, Resources, ...) are
# why it last waited, which sacct's and scontrol's Reason also report, and are left out of the error.
END_REASONS = ("TimeLimit", "NodeDown", "NodeFail", "Prolog", "Epilog", "OutOf", "Preempt", "Deadline",
               "BadConstraints", "Launch", "Kill", "Boot")
# File systems that other nodes see: a binary or a folder elsewhere gets a warning.
SHARED_FS = ("nfs", "nfs4", "lustre", "gpfs", "beegfs", "cifs", "smb3", "smbfs", "ceph", "cephfs", "glusterfs",
             "fuse.glusterfs", "fuse.cephfs", "fuse.sshfs", "panfs", "orangefs", "pvfs2", "afs", "9p", "virtiofs",
             "fuse.beegfs", "wekafs", "fuse.weka", "quobyte", "fuse.quobyte")


class SlurmError(Exception):
    """SLURM refused or cannot be reached; the message names the command and passes SLURM's own."""


def slurm(cmd, timeout=60):
    """Runs a SLURM client command; (returncode, stdout, stderr's text)."""
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except FileNotFoundError:
        raise SlurmError(f"{cmd[0]}: not found on PATH (install SLURM's client commands: Debian's slurm-client)")
    except subprocess.TimeoutExpired:
        raise SlurmError(f"{' '.join(cmd[:2])}: no answer in {timeout} s")
    return p.returncode, p.stdout, " ".join(line.strip() for line in p.stderr.splitlines() if line.strip())


def fs_type(path):
    """The type of the file system that holds path (/proc/self/mountinfo's longest mount point)."""
    path, best, kind = os.path.realpath(path), "", "unknown"
    try:
        with open("/proc/self/mountinfo") as f:
            for line in f:
                fields = line.split()
                mount = fields[4].replace("\\040", " ")
                fstype = fields[fields.index("-") + 1]
                inside = path == mount or path.startswith(mount.rstrip("/") + "/")
                if inside and len(mount) >= len(best):
                    best, kind = mount, fstype
    except (OSError, ValueError, IndexError):
        pass
    return kind


def preflight(args):
    """sbatch there, the controller answering, and a warning for paths other nodes may not see."""
    if not shutil.which("sbatch"):
        raise SlurmError("--engine slurm: sbatch not found on PATH (install SLURM's client commands: "
                         "Debian's slurm-client)")
    rc, out, err = slurm(["scontrol", "ping"])
    if rc != 0 or "UP" not in out:
        said = next((line.strip() for line in (out + "\n" + err).splitlines() if line.strip()), f"exit status {rc}")
        raise SlurmError(f"--engine slurm: the SLURM controller is unreachable: scontrol ping: {said}"
                         + (f" (SLURM_CONF={os.environ['SLURM_CONF']})" if os.environ.get("SLURM_CONF") else ""))
    for what, path in (("the rfsim binary", args.rfsim), ("the output folder", args.out)):
        kind = fs_type(path)
        if kind not in SHARED_FS:
            print(f"compare: warning: --engine slurm: {what} {path} is not on a shared file system (it is on {kind}): "
                  "a task on another node cannot see it", file=sys.stderr)


def check_pending(out, collecting):
    """The job an earlier compare submitted into out, if any; an error if it is still queued or running
    and this compare would start runs of its own."""
    path = os.path.join(out, PENDING)
    if not os.path.isfile(path):
        return None
    try:
        job = read_json(path)
    except InputError as e:
        raise SlurmError(str(e))
    if collecting or not shutil.which("squeue"):
        return job
    if queued(job["job"]) is not None:
        raise SlurmError(f"{out}: SLURM job {job['job']} is still running its runs: `rfsim compare --collect {out}` "
                         f"waits for it and writes the results; `scancel {job['job']}` stops it")
    return job


def queued(job_id):
    """{array index: state} of the job's tasks still in the queue; None once none is."""
    rc, out, err = slurm(["squeue", "-h", "-r", "-j", str(job_id), "-o", "%K %T"])
    if rc != 0:
        if "Invalid job id" in err:
            return None
        raise SlurmError(f"squeue -j {job_id}: {err or f'exit status {rc}'}")
    states = {}
    for line in out.splitlines():
        index, _, state = line.strip().partition(" ")
        if index.isdigit():
            states[int(index)] = state
    return states or None


def submit(args, argv, cwd, runs):
    """Writes the tasks file, submits the array, records DIR/slurm/pending.json; returns its content."""
    todo = [r for r in runs if not (os.path.isfile(os.path.join(args.out, r["dir"], "manifest.json"))
                                    and not r.get("rerun"))]
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S-%f")
    sub = os.path.join(args.out, "slurm", stamp)
    os.makedirs(sub)
    files = {c: sha256(c) for c in sorted({r["asked"]["config"] for r in todo}) if os.path.isfile(c)}
    tasks = {"schema": "rfsim-slurm-tasks/1", "out": args.out, "rfsim": args.rfsim, "sha256": sha256(args.rfsim),
             "config_files": files, "timeout": args.timeout, "runs_per_task": args.runs_per_task,
             "runs": [{"dir": r["dir"], "log": r["log"], "command": r["command"], "cwd": r.get("cwd", REPO)}
                      for r in todo]}
    tasks_file = os.path.join(sub, "tasks.json")
    write_atomic(tasks_file, json.dumps(tasks, indent=1) + "\n")
    script = os.path.join(sub, "task.sh")
    task_py = os.path.join(os.path.dirname(os.path.abspath(__file__)), "slurm_task.py")
    with open(script, "w") as f:
        f.write(f"#!/bin/sh\n# One run of rfsim compare's job array (scripts/rfsim_tools/slurm_task.py).\n"
                f"exec /usr/bin/python3 {task_py} {tasks_file}\n")
    job = {"job": None, "submitted": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
           "tasks_file": tasks_file, "sha256": tasks["sha256"], "argv": list(argv), "cwd": cwd,
           "runs": [r["dir"] for r in todo], "runs_per_task": args.runs_per_task, "sbatch": []}
    if not todo:
        return job
    ntasks = -(-len(todo) // args.runs_per_task)
    array = f"0-{ntasks - 1}" + (f"%{args.max_parallel}" if args.max_parallel else "")
    cmd = ["sbatch", "--parsable", f"--array={array}", "--job-name=rfsim-compare", f"--chdir={cwd}",
           f"--output={sub}/%a.out"]
    for flag, value in (("--partition", args.partition), ("--time", args.time), ("--mem", args.mem)):
        if value:
            cmd.append(f"{flag}={value}")
    cmd += args.sbatch_arg + [script]
    rc, out, err = slurm(cmd, timeout=120)
    if rc != 0:
        shutil.rmtree(sub, ignore_errors=True)
        raise SlurmError(f"sbatch refused the job array: {err or f'exit status {rc}'}")
    job["job"] = out.strip().split(";")[0]
    job["tasks"] = ntasks
    job["sbatch"] = cmd
    write_atomic(os.path.join(args.out, PENDING), json.dumps(job, indent=1) + "\n")
    return job


def wait(job, runs, out, bar, stopped):
    """Polls squeue until no task of the job is queued or running; the bar counts the ended tasks.
    Returns early when stopped() (compare got SIGINT/SIGTERM: the job goes on)."""
    per = job.get("runs_per_task", 1)
    seen, start, failures = 0, time.monotonic(), 0
    while not stopped():
        try:
            states = queued(job["job"])
            failures = 0
        except SlurmError as e:
            failures += 1
            if failures * poll_interval(time.monotonic() - start) > 120:
                raise SlurmError(f"{e} (for two minutes; `rfsim compare --collect {out}` waits for job {job['job']} "
                                 "again)")
            states = {}
        ended = sum(i // per not in (states or {}) for i in range(len(job["runs"])))
        if bar is not None:
            bar.update(ended - seen)
            running = sum(s == "RUNNING" for s in (states or {}).values())
            bar.set_postfix_str(f"SLURM job {job['job']}: {running} running, "
                                f"{len(states or {}) - running} queued")
        seen = ended
        if states is None:
            return
        time.sleep(poll_interval(time.monotonic() - start))


def poll_interval(elapsed):
    """Once a second at first, then less often: at most every 10 s on a long job."""
    return min(1.0 + elapsed / 60.0, 10.0)


def final_states(job_id):
    """{array index: {"state", "reason", "exit"}} from sacct, or from scontrol show job where the
    cluster keeps no accounting (scontrol knows a job until the controller purges it: MinJobAge)."""
    found = {}
    for fmt in ("JobID,State,ExitCode,Reason", "JobID,State,ExitCode"):
        rc, out, err = slurm(["sacct", "-X", "-n", "-P", "-j", str(job_id), "-o", fmt])
        if rc != 0:
            if "accounting storage is disabled" in err:
                break
            continue
        for line in out.splitlines():
            parts = line.split("|")
            task = parts[0].partition("_")[2]
            if task.isdigit():
                found[int(task)] = {"state": parts[1], "exit": parts[2],
                                    "reason": parts[3] if len(parts) > 3 and parts[3] != "None" else ""}
        if found:
            return found
    rc, out, err = slurm(["scontrol", "-o", "show", "job", str(job_id)])
    for line in out.splitlines():
        fields = dict(f.partition("=")[::2] for f in line.split() if "=" in f)
        if fields.get("ArrayTaskId", "").isdigit():
            found[int(fields["ArrayTaskId"])] = {
                "state": fields.get("JobState", "?"), "exit": fields.get("ExitCode", "?"),
                "reason": "" if fields.get("Reason") in (None, "None") else fields["Reason"]}
    return found


def gather(job, runs, runner, units):
    """Each run's record from the disk: a task's result file, else SLURM's state of the task."""
    index = {d: i for i, d in enumerate(job["runs"])}
    states = final_states(job["job"]) if job["job"] else {}
    for r in runs:
        final = os.path.join(runner.out, r["dir"])
        if r["dir"] not in index:
            if os.path.isfile(os.path.join(final, "manifest.json")) and not r.get("rerun"):
                runner.execute(r, units)  # complete before the job: reused
            continue
        i = index[r["dir"]] // job.get("runs_per_task", 1)
        task = f"{job['job']}_{i}"
        state = states.get(i, {})
        r["slurm"] = {"task": task, **state}
        try:
            result = read_json(os.path.join(runner.out, r["log"])[:-len(".log")] + ".task.json")
        except InputError:
            result = {}
        if result.get("task") != task:
            result = {}  # an earlier job's
        r["run_seconds"] = result.get("run_seconds")
        if result.get("timed_out"):
            r["status"], r["error"] = "timeout", result.get("error")
            mark_incomplete(final, f"rfsim compare {r['error']}")
            continue
        if result or os.path.isfile(os.path.join(final, "manifest.json")):
            r["returncode"] = result.get("returncode")
            runner.finish(r, final, r["returncode"], result.get("error", ""), units)
            if r["status"] == "complete" or not state.get("state", "").startswith(KILLED):
                continue
        # SLURM ended the task before rfsim could finish (or tell): its state is the reason.
        said = state.get("state", "no state (the controller no longer knows the task)")
        reason = f", {state['reason']}" if state.get("reason", "").startswith(END_REASONS) else ""
        r["status"] = "failed"
        r["error"] = f"SLURM task {task}: {said}{reason}, exit code {state.get('exit', '?')}"
        mark_incomplete(final, r["error"])


def collected(out, job):
    """The job is in compare.json: it is no longer pending."""
    path = os.path.join(out, PENDING)
    if os.path.isfile(path) and read_json(path).get("job") == job["job"]:
        os.remove(path)


def record(job):
    """compare.json's "slurm": the job, what was submitted and the binary's hash."""
    return {k: job.get(k) for k in ("job", "submitted", "sha256", "sbatch", "tasks_file", "tasks", "runs_per_task")}


def run(args, argv, cwd, runs, runner, units, bar):
    """Submits the runs that are not complete (or, with --collect, takes the submitted job), waits,
    and fills the runs' records. Returns (job, None), or (job, exit status) when compare is to stop
    here: detached, or stopped by a signal while the job goes on."""
    job = args.collect
    if job is None:
        preflight(args)
        job = submit(args, argv, cwd, runs)
        if job["job"]:
            n = job["tasks"]
            print(f"compare: SLURM job {job['job']}: {len(job['runs'])} of {len(runs)} runs in {n} array "
                  f"task{'s' if n != 1 else ''} ({shlex.join(job['sbatch'])})", flush=True)
        if args.detach:
            if job["job"]:
                print(f"compare: detached: `rfsim compare --collect {args.out}` waits for it and writes the results "
                      f"(`scancel {job['job']}` stops it)")
                return job, 0
            print("compare: every run is complete already: nothing submitted")
    if bar is not None:
        bar.update(len(runs) - len(job["runs"]))
    if job["job"]:
        wait(job, runs, args.out, bar, lambda: runner.signum)
    if runner.signum:
        name = signal.Signals(runner.signum).name
        print(f"compare: stopped by {name}: SLURM job {job['job']} goes on; `rfsim compare --collect {args.out}` "
              f"waits for it and writes the results (`scancel {job['job']}` stops it)", file=sys.stderr)
        return job, 128 + runner.signum
    gather(job, runs, runner, units)
    for r in runs:
        if r["status"] != "complete":
            msg = f"compare: {r['status']}: {r['config']}/{r['variant']}/{r['workload']}: {r.get('error', '')}"
            (bar.write if bar is not None else print)(msg, file=sys.stderr)
    return job, None
