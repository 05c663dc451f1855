"""A single-node SLURM cluster on localhost for the tests, as ordinary processes.

Debian's slurm-wlm (slurmctld, slurmd) and munge (scripts/setup.sh installs them). Everything
lives in one temporary folder: a munge key and socket, slurm.conf (no cgroups, no accounting
database), the controller's state and the node's spool. The ports are free ones chosen at start.
Client commands find the cluster through SLURM_CONF, which env() sets.

    with Cluster(log=print) as c:
        subprocess.run(["sbatch", ...], env=c.env())

Start() raises ClusterError naming what failed (a missing program, a daemon that exited, its log's
last lines): a test fails with the reason, it never skips.
"""

import os
import shutil
import socket
import subprocess
import tempfile
import time

PROGRAMS = ("munged", "slurmctld", "slurmd", "sbatch", "squeue", "sinfo", "scontrol", "scancel")


class ClusterError(Exception):
    pass


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def tail(path, n=8):
    try:
        with open(path, errors="replace") as f:
            return "".join(f.readlines()[-n:]).rstrip()
    except OSError:
        return "(no log)"


class Cluster:
    NODE = "rfsimnode"

    def __init__(self, cpus=2, log=None):
        self.cpus = cpus
        self.log = log or (lambda s: None)
        self.dir = None
        self.procs = {}

    def env(self):
        e = dict(os.environ)
        e["SLURM_CONF"] = self.conf
        return e

    def run(self, *cmd, check=True):
        p = subprocess.run(list(cmd), env=self.env(), capture_output=True, text=True, timeout=30)
        if check and p.returncode:
            raise ClusterError(f"{' '.join(cmd)}: exit {p.returncode}: {p.stderr.strip()}")
        return p.stdout

    def start(self):
        missing = [p for p in PROGRAMS if not shutil.which(p, path=os.environ.get("PATH", "") + ":/usr/sbin:/sbin")]
        if missing:
            raise ClusterError(f"SLURM cannot start: {', '.join(missing)} not installed "
                               "(scripts/setup.sh installs slurm-wlm and munge)")
        self.dir = tempfile.mkdtemp(prefix="rfsim-slurm-")
        d = self.dir
        for sub in ("munge", "state", "spool", "log"):
            os.makedirs(os.path.join(d, sub), mode=0o700)
        key = os.path.join(d, "munge", "munge.key")
        with open(key, "wb") as f:
            f.write(os.urandom(1024))
        os.chmod(key, 0o400)
        self.socket = os.path.join(d, "munge", "munge.socket")
        self.spawn("munged", ["munged", "--foreground", "--force", f"--key-file={key}", f"--socket={self.socket}",
                              f"--pid-file={d}/munge/munged.pid", f"--log-file={d}/log/munged.log",
                              f"--seed-file={d}/munge/munged.seed"])
        self.wait_for(lambda: os.path.exists(self.socket), "munged", f"{d}/log/munged.log")
        host = socket.gethostname().split(".")[0]
        user = subprocess.run(["id", "-un"], capture_output=True, text=True).stdout.strip()
        mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // (1 << 20)
        self.conf = os.path.join(d, "slurm.conf")
        with open(self.conf, "w") as f:
            f.write(f"""ClusterName=rfsimtest
SlurmctldHost={host}(127.0.0.1)
SlurmUser={user}
SlurmdUser={user}
SlurmctldPort={free_port()}
SlurmdPort={free_port()}
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={self.socket}
StateSaveLocation={d}/state
SlurmdSpoolDir={d}/spool
SlurmctldPidFile={d}/slurmctld.pid
SlurmdPidFile={d}/slurmd.pid
SlurmctldLogFile={d}/log/slurmctld.log
SlurmdLogFile={d}/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU_Memory
DefMemPerCPU=256
SwitchType=switch/none
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
ReturnToService=2
MinJobAge=3600
SchedulerType=sched/builtin
SchedulerParameters=sched_interval=1
MaxArraySize=10001
KillWait=2
InactiveLimit=0
NodeName={self.NODE} NodeHostname={host} NodeAddr=127.0.0.1 CPUs={self.cpus} RealMemory={max(mem // 2, 512)} State=UNKNOWN
PartitionName=debug Nodes={self.NODE} Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
""")
        self.log(f"cluster: slurm.conf in {d} (controller {host}, node {self.NODE}, {self.cpus} CPUs)")
        self.spawn("slurmctld", ["slurmctld", "-D", "-i", "-f", self.conf])
        self.wait_for(lambda: self.run("scontrol", "ping", check=False).find("UP") >= 0, "slurmctld",
                      f"{d}/log/slurmctld.log")
        self.spawn("slurmd", ["slurmd", "-D", "-N", self.NODE, "-f", self.conf])
        self.wait_for(self.node_idle, "slurmd", f"{d}/log/slurmd.log")
        self.log(f"cluster: up: {self.run('sinfo', '-h', '-o', '%P %a %D %t %c').strip()}")
        return self

    def node_idle(self):
        out = self.run("sinfo", "-h", "-n", self.NODE, "-o", "%t", check=False).strip()
        return out.startswith("idle")

    def spawn(self, name, cmd):
        err = open(os.path.join(self.dir, "log", name + ".stderr"), "w")
        self.procs[name] = subprocess.Popen(cmd, env=self.env() if hasattr(self, "conf") else None,
                                            stdout=err, stderr=subprocess.STDOUT, start_new_session=True)

    def wait_for(self, ready, name, logfile, timeout=30):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            p = self.procs[name]
            if p.poll() is not None:
                raise ClusterError(f"SLURM cannot start: {name} exited with {p.returncode}: "
                                   f"{tail(os.path.join(self.dir, 'log', name + '.stderr'))}\n{tail(logfile)}")
            try:
                if ready():
                    return
            except (ClusterError, OSError, subprocess.TimeoutExpired):
                pass
            time.sleep(0.2)
        raise ClusterError(f"SLURM cannot start: {name} not ready after {timeout} s: {tail(logfile)}")

    def stop(self):
        for name in ("slurmd", "slurmctld", "munged"):
            p = self.procs.pop(name, None)
            if p is None:
                continue
            p.terminate()
            try:
                p.wait(timeout=15)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        self.log("cluster: stopped")
        if self.dir and not os.environ.get("RFSIM_KEEP_SLURM"):
            shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self):
        try:
            return self.start()
        except BaseException:
            self.stop()
            raise

    def __exit__(self, *exc):
        self.stop()
