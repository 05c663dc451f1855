"""rfsim compare's local engine: the rfsim processes on this machine, several at once
(scripts/compare.py; docs/compare.md "How the runs are made")."""

import os
import shlex
import signal
import subprocess
import threading
import time

from .common import InputError, read_json
from .folder_lock import remove_stale
from .stats import StatsError, run_metrics

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Runner:
    """Runs the rfsim processes, several at once, and stops them all on SIGTERM/SIGINT."""

    def __init__(self, out, timeout):
        self.out = out
        self.timeout = timeout
        self.lock = threading.RLock()
        self.active = set()
        self.signum = None  # the signal that stopped compare

    def stop(self, signum, _frame):
        """SIGINT/SIGTERM: stop the runs under way, start no other; main() then writes what is on disk."""
        with self.lock:
            self.signum = signum
            for p in self.active:
                try:
                    os.killpg(p.pid, signal.SIGTERM)
                except OSError:
                    pass

    def execute(self, run, units):
        final = os.path.join(self.out, run["dir"])
        if os.path.isfile(os.path.join(final, "manifest.json")) and not run.get("rerun"):
            run["resumed"] = True
            return self.finish(run, final, None, "", units)
        # rfsim itself removes a stale <folder>.partial, under the folder's lock.
        cmd = list(run["command"])
        if os.path.exists(final):
            # Before the application's own arguments, where rfsim exec has them.
            cmd.insert(cmd.index("--") if "--" in cmd else len(cmd), "--overwrite")
        os.makedirs(os.path.dirname(final), exist_ok=True)
        log = os.path.join(self.out, run["log"])
        os.makedirs(os.path.dirname(log), exist_ok=True)
        start = time.monotonic()
        with self.lock:
            if self.signum:
                run["status"] = "not-run"
                return run
            # Its own session, so that a timeout or a stop ends rfsim and anything it starts.
            p = subprocess.Popen(cmd, cwd=run.get("cwd", REPO), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True, errors="replace", start_new_session=True)
            self.active.add(p)
        try:
            stdout, stderr = p.communicate(timeout=self.timeout)
            timed_out = False
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            stdout, stderr = p.communicate()
            timed_out = True
        finally:
            with self.lock:
                self.active.discard(p)
        run["run_seconds"] = round(time.monotonic() - start, 3)
        run["returncode"] = p.returncode
        with open(log, "w") as f:
            f.write(f"$ {shlex.join(cmd)}\n{stdout}{stderr}")
        if timed_out:
            run["status"] = "timeout"
            run["error"] = f"stopped after --timeout {self.timeout:g} s"
            mark_incomplete(final, f"rfsim compare {run['error']}")
            return run
        if self.signum:
            if os.path.isfile(os.path.join(final, "manifest.json")):
                # Complete before the signal reached it: the disk has the whole run, and so does compare.json.
                return self.finish(run, final, None, "", units)
            run["status"] = "interrupted"
            run["error"] = f"stopped by {signal.Signals(self.signum).name} to rfsim compare"
            mark_incomplete(final, run["error"])
            return run
        lines = [line.strip() for line in stderr.splitlines() if line.strip()]
        error = lines[-1] if lines else (f"killed by signal {-p.returncode}" if p.returncode < 0
                                         else f"exit status {p.returncode}")
        return self.finish(run, final, p.returncode, error, units)

    def finish(self, run, final, returncode, error, units):
        if not os.path.isfile(os.path.join(final, "manifest.json")):
            run["status"] = "failed"
            run["error"] = error
            return run
        if "request" not in run:  # a reused run's was read when it was checked
            try:
                request = read_json(os.path.join(final, "stats.json")).get("run", {}).get("request")
            except (InputError, AttributeError):
                request = None
            if isinstance(request, dict):
                run["request"] = request  # what the report's header shows
        try:
            metrics, metric_units, detail = run_metrics(final, run["workload"].partition("@")[0])
        except StatsError as e:
            run["status"] = "failed"
            # A complete folder is skipped by the next compare too: only removing it runs it again.
            run["error"] = str(e) + (f" (remove {final} to run it again)" if run["resumed"] else "")
            return run
        with self.lock:
            units.update(metric_units)
        run["metrics"] = metrics
        failed = (returncode not in (None, 0)) or metrics.get("passed") is False
        run["status"] = "failed" if failed else "complete"
        if failed:
            run["error"] = error or f"CPU check failed: {detail}"
        return run


def mark_incomplete(final, reason):
    """The reason a stopped run's <folder>.partial is incomplete, unless rfsim wrote its own; and
    its lock file gone (the operating system freed the lock when rfsim was killed)."""
    remove_stale(final)
    partial = final + ".partial"
    if os.path.isdir(partial) and not os.path.exists(os.path.join(partial, "INCOMPLETE")):
        try:
            with open(os.path.join(partial, "INCOMPLETE"), "w") as f:
                f.write(reason + "\n")
        except OSError:
            pass
