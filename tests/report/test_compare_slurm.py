#!/usr/bin/python3
"""rfsim compare --engine slurm against a real single-node SLURM cluster that this test starts
(tests/report/slurm_cluster.py: munged, slurmctld and slurmd as ordinary processes on localhost).

    test_compare_slurm.py --rfsim build/rfsim

It prints a transcript: the cluster starting, the submission, the task it cancels, the resume.
 1. The same comparison (4 workloads x base and +cars) with the local engine and with SLURM; one
    SLURM task is cancelled with scancel while it runs: that run is failed with SLURM's state.
 2. The same command again submits that run only; the other runs' folders are untouched.
 3. Every stats.json is identical to the local engine's (scripts/stats_diff.py: all but host time),
    and so are compare.csv's statistics.
 4. --detach on a held job (--runs-per-task 2: 4 tasks): a second compare into the folder refuses
    while the job is queued; --collect finishes it. A binary changed after submission: its tasks
    refuse to run it.
 5. Bad input: sbatch missing, the controller unreachable, a partition that does not exist.
If SLURM cannot start, the test fails with the reason (it never skips).
"""

import argparse
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True
from slurm_cluster import Cluster, ClusterError  # noqa: E402

WORKLOADS = "saxpy,fib,r2_bp64,histogram"
# The longest run (about 7 s on the 2-core development machine; bfs, at 0.5 s, could finish between
# the squeue that saw it running and the scancel): still running when it is cancelled.
CANCEL = "runs/v100/cars/r2_bp64"
T0 = time.monotonic()


def say(text):
    print(f"[{time.monotonic() - T0:6.1f} s] {text}", flush=True)


class Failed(Exception):
    pass


def check(ok, what):
    if not ok:
        raise Failed(what)


def compare(rfsim, out, *extra, env=None, wait=True):
    cmd = [rfsim, "compare", "-w", WORKLOADS, "-c", "v100", "--variant", "cars:+cars", "-o", out, "--no-report",
           *extra]
    p = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if not wait:
        return p
    stdout, stderr = p.communicate(timeout=240)
    return p.returncode, stdout, stderr


def show(stdout, stderr):
    for line in (stdout + stderr).splitlines():
        print(f"           | {line}", flush=True)


def manifests(out):
    found = {}
    for root, _, files in os.walk(os.path.join(out, "runs")):
        if "manifest.json" in files:
            found[os.path.relpath(root, out)] = os.stat(os.path.join(root, "manifest.json")).st_mtime_ns
    return found


def statistics(out):
    """compare.csv's rows without what measures the host or the way the run was made."""
    with open(os.path.join(out, "compare.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    skip = {"host_seconds", "run_seconds", "resumed", "dir", "log"}
    return sorted(({k: v for k, v in r.items() if k not in skip} for r in rows),
                  key=lambda r: (r["variant"], r["workload"]))


def cancel_while_running(cluster, out, p):
    """Waits for the task of CANCEL to run, then scancels it; returns its id."""
    pending = os.path.join(out, "slurm", "pending.json")
    end = time.monotonic() + 120
    while time.monotonic() < end and p.poll() is None:
        if os.path.isfile(pending):
            job = json.load(open(pending))
            index = job["runs"].index(CANCEL)
            states = cluster.run("squeue", "-h", "-r", "-j", job["job"], "-o", "%K %T", check=False)
            if f"{index} RUNNING" in states.splitlines():
                task = f"{job['job']}_{index}"
                cluster.run("scancel", task)
                say(f"cancel: scancel {task} ({CANCEL}, RUNNING); the queue was: "
                    f"{' | '.join(states.split(chr(10))).strip(' |')}")
                return task
        time.sleep(0.05)
    raise Failed(f"the task of {CANCEL} was never seen running (compare exited {p.returncode})")


def main(rfsim, tmp):
    with Cluster(cpus=2, log=say) as cluster:
        env = cluster.env()
        local, on_slurm = os.path.join(tmp, "local"), os.path.join(tmp, "slurm")

        start = time.monotonic()
        rc, stdout, stderr = compare(rfsim, local, "-j", "2", env=env)
        local_s = time.monotonic() - start
        say(f"local: rc {rc} in {local_s:.1f} s")
        show(stdout, stderr)
        check(rc == 0, f"the local compare failed: {stderr}")

        say("submit: rfsim compare --engine slurm --max-parallel 2 --time 5 --mem 400M")
        start = time.monotonic()
        p = compare(rfsim, on_slurm, "--engine", "slurm", "--max-parallel", "2", "--time", "5", "--mem", "400M",
                    env=env, wait=False)
        task = cancel_while_running(cluster, on_slurm, p)
        stdout, stderr = p.communicate(timeout=240)
        say(f"first compare: rc {p.returncode} in {time.monotonic() - start:.1f} s")
        show(stdout, stderr)
        check(p.returncode == 1, f"a cancelled run fails the compare (exit 1), got {p.returncode}")
        check(f"{rfsim} is not on a shared file system" in stderr,
              "the warning naming the binary that is not on a shared file system")
        doc = json.load(open(os.path.join(on_slurm, "compare.json")))
        check(doc["engine"] == "slurm" and doc["slurm"]["job"] == task.split("_")[0], "compare.json's slurm record")
        check(len(doc["slurm"]["sha256"]) == 64, "the binary's hash recorded")
        check({"--time=5", "--mem=400M"} <= set(doc["slurm"]["sbatch"]) and
              any(a.startswith("--array=0-7%2") for a in doc["slurm"]["sbatch"]), "sbatch's options")
        failed = [r for r in doc["runs"] if r["status"] != "complete"]
        check([r["dir"] for r in failed] == [CANCEL], f"only the cancelled run failed: {failed}")
        check("CANCELLED" in failed[0]["error"] and failed[0]["slurm"]["state"].startswith("CANCELLED"),
              f"SLURM's reason recorded: {failed[0]['error']}")
        check(not os.path.isdir(os.path.join(on_slurm, CANCEL)), "the cancelled run is not complete")
        check(not os.path.exists(os.path.join(on_slurm, "slurm", "pending.json")), "the job collected")
        say(f"cancelled run in compare.json: status {failed[0]['status']}: {failed[0]['error']}")
        before = manifests(on_slurm)
        check(len(before) == 7, f"7 complete runs, got {len(before)}")

        # SLURM reports the task CANCELLED before its processes are gone (proctrack/linuxproc
        # signals them, KillWait kills them): a resume while the cancelled run still holds its
        # folder is refused ("in use by process N"), as it should be. So wait for it, as a user
        # resuming after a scancel would.
        lock = os.path.join(on_slurm, CANCEL + ".lock")
        start = time.monotonic()
        while time.monotonic() - start < 60:
            try:
                holder = int(open(lock).read().split()[0])
                os.kill(holder, 0)
            except (OSError, ValueError, IndexError):
                break
            time.sleep(0.2)
        say(f"cancelled run's process gone after {time.monotonic() - start:.1f} s")
        say("resume: the same command again")
        start = time.monotonic()
        rc, stdout, stderr = compare(rfsim, on_slurm, "--engine", "slurm", "--max-parallel", "2", "--time", "5",
                                     "--mem", "400M", env=env)
        say(f"resume: rc {rc} in {time.monotonic() - start:.1f} s")
        show(stdout, stderr)
        check(rc == 0, f"the resumed compare failed: {stderr}")
        check("1 of 8 runs in 1 array task (" in stdout, "the resume submits the cancelled run only")
        check("compare: 8 runs (1 run, 7 already complete, 0 failed)" in stdout, "the resume's summary")
        after = manifests(on_slurm)
        check(all(after[k] == v for k, v in before.items()) and CANCEL in after,
              "the complete runs untouched, the cancelled one complete")
        doc = json.load(open(os.path.join(on_slurm, "compare.json")))
        check(sum(r["resumed"] for r in doc["runs"]) == 7 and doc["complete"], "compare.json: 7 reused, complete")

        diff = subprocess.run([sys.executable, os.path.join(REPO, "scripts", "stats_diff.py"), local, on_slurm],
                              capture_output=True, text=True)
        say(f"identical to local: {diff.stdout.strip().splitlines()[-1] if diff.stdout.strip() else diff.stderr}")
        check(diff.returncode == 0, f"stats.json differ from the local engine's: {diff.stdout}")
        check(statistics(local) == statistics(on_slurm), "compare.csv's statistics differ from the local engine's")
        say("identical to local: compare.csv's 8 rows equal but for host_seconds, run_seconds, resumed")

        detached_and_collected(rfsim, cluster, env, tmp)
        bad_input(rfsim, cluster, env, tmp)
        with open(os.path.join(tmp, "overhead.json"), "w") as f:
            json.dump({"local_s": local_s}, f)


def detached_and_collected(rfsim, cluster, env, tmp):
    out = os.path.join(tmp, "detached")
    binary = os.path.join(tmp, "rfsim-copy")
    shutil.copy2(rfsim, binary)
    rc, stdout, stderr = compare(binary, out, "--engine", "slurm", "--detach", "--sbatch-arg=--hold",
                                 "--runs-per-task", "2", env=env)
    say(f"detach: rc {rc}")
    show(stdout, stderr)
    check(rc == 0 and "compare: detached" in stdout and "8 of 8 runs in 4 array tasks" in stdout,
          "--detach returns once submitted; --runs-per-task 2 makes 4 tasks of 8 runs")
    job = json.load(open(os.path.join(out, "slurm", "pending.json")))["job"]
    rc, stdout, stderr = compare(rfsim, out, env=env)
    say(f"a second compare into the folder while job {job} is queued: rc {rc}")
    show(stdout, stderr)
    check(rc == 1 and f"SLURM job {job} is still running" in stderr, "a second compare refuses while the job runs")
    with open(binary, "ab") as f:
        f.write(b"\0")  # another build on the shared file system
    cluster.run("scontrol", "release", job)
    p = subprocess.run([rfsim, "compare", "--collect", out], cwd=REPO, env=env, capture_output=True, text=True,
                       timeout=240)
    say(f"collect: rc {p.returncode}")
    show(p.stdout, p.stderr)
    doc = json.load(open(os.path.join(out, "compare.json")))
    check(p.returncode == 1 and len(doc["runs"]) == 8, "--collect writes compare.json (failed runs: exit 1)")
    check(all(r["status"] == "failed" and "changed since the job was submitted" in r["error"] for r in doc["runs"]),
          f"every task refused the changed binary: {[r.get('error') for r in doc['runs']]}")
    check(not manifests(out), "no run made with the changed binary")
    p = subprocess.run([rfsim, "compare", "--collect", out], cwd=REPO, env=env, capture_output=True, text=True)
    check(p.returncode == 2 and "collected already" in p.stderr, f"a second --collect: {p.stderr}")


def bad_input(rfsim, cluster, env, tmp):
    out = os.path.join(tmp, "bad")
    rc, _, stderr = compare(rfsim, out, "--engine", "slurm", "--partition", "nosuch", env=env)
    say(f"bad input: --partition nosuch: rc {rc}: {stderr.strip().splitlines()[-1]}")
    check(rc == 1 and "Invalid partition name specified" in stderr, "SLURM's message for a partition")
    no_sbatch = dict(env, PATH="/nonexistent")
    rc, _, stderr = compare(rfsim, out, "--engine", "slurm", env=no_sbatch)
    say(f"bad input: no sbatch on PATH: rc {rc}: {stderr.strip().splitlines()[-1]}")
    check(rc == 1 and "sbatch not found on PATH" in stderr, "a missing sbatch named")
    conf = os.path.join(tmp, "down.conf")
    with open(cluster.conf) as f, open(conf, "w") as g:
        g.write("".join(line for line in f if not line.startswith("SlurmctldPort=")) + "SlurmctldPort=1\n")
    rc, _, stderr = compare(rfsim, out, "--engine", "slurm", env=dict(env, SLURM_CONF=conf))
    say(f"bad input: controller down: rc {rc}: {stderr.strip().splitlines()[-1]}")
    check(rc == 1 and "SLURM controller is unreachable" in stderr and "DOWN" in stderr, "an unreachable controller")
    check(not os.path.exists(os.path.join(out, "runs")), "nothing run on bad input")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--rfsim", required=True)
    opts = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="rfsim-compare-slurm-")
    try:
        main(os.path.abspath(opts.rfsim), tmp)
    except (ClusterError, Failed) as e:
        say(f"FAIL: {e}")
        sys.exit(1)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    say("PASS")
