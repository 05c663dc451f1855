#!/usr/bin/env python3
"""Parallel SMs: host speed and bit-identity against the number of host threads.

    scripts/scaling.py [-c CONFIG] [--threads 1,2,4,8,16] [--mech M] [--set KEY=VALUE ...]
                       [--size large|small] [--reps N] [-o DIR] [--json FILE] WORKLOAD ...

Runs each workload's timing model (`rfsim run --timing --sample off`) once with the SMs stepped
one after another on one thread (`sim.parallel_sms=false`, the default mode), then with
`sim.parallel_sms=true` on each thread count (docs/memory.md, "Parallel SMs"). For every run it
prints the wall time, the CPU time, the peak resident memory (the child's own, from wait4), warp
instructions per host second, the speed-up over the serial run and over the parallel mode on one
thread, and whether every statistic but the host's (scripts/stats_diff.py) is identical to the
parallel mode's on the first thread count. With --reps N each run is repeated and the fastest
kept. Exits 1 if a run fails, its CPU check fails, or the statistics differ between thread
counts. docs/performance.md keeps the figures and the machines they were measured on.
"""
import argparse
import json
import os
import pathlib
import subprocess
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from stats_diff import walk  # noqa: E402  (the same rule for what counts as a host statistic)


def run_once(cmd, cwd):
    """Runs cmd; returns (exit status, wall s, CPU s, peak RSS MiB) of that child alone."""
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    err = p.stderr.read().decode(errors="replace")
    p.stderr.close()
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        sys.stderr.write(err)
    return p.returncode, wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024.0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("workloads", nargs="+")
    ap.add_argument("-c", "--config", default="configs/v100.yaml")
    ap.add_argument("--threads", default=None, help="comma-separated thread counts (default: 1,2,...,the host's cores)")
    ap.add_argument("--mech", default="none")
    ap.add_argument("--set", action="append", default=[], help="KEY=VALUE for every run (repeatable)")
    ap.add_argument("--size", choices=["large", "small"], default="large")
    ap.add_argument("--reps", type=int, default=1)
    ap.add_argument("--rfsim", default=os.environ.get("RFSIM", str(HERE.parent / "build" / "rfsim")))
    ap.add_argument("-o", "--out", default=None, help="folder for the runs' results (default: a temporary one)")
    ap.add_argument("--json", default=None, help="write the table to this file")
    a = ap.parse_args()

    if a.threads:
        counts = [int(t) for t in a.threads.split(",")]
    else:
        counts, n = [], 1
        while n < os.cpu_count():
            counts.append(n)
            n *= 2
        counts.append(os.cpu_count())
    out = pathlib.Path(a.out or subprocess.check_output(["mktemp", "-d"], text=True).strip())
    out.mkdir(parents=True, exist_ok=True)
    root = HERE.parent
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    print(f"machine: {cpu}, {os.cpu_count()} cores; {a.config}, mechanism {a.mech}, {a.size} inputs"
          f"{', --set ' + ' '.join(a.set) if a.set else ''}; best of {a.reps}")
    head = f"{'workload':<14} {'mode':<9} {'thr':>3} {'wall s':>8} {'CPU s':>8} {'MiB':>6} {'warp instr/s':>13} " \
           f"{'vs serial':>9} {'vs 1 thr':>8}  same stats"
    print(head, flush=True)
    rows, status = [], 0
    for w in a.workloads:
        base_dir, serial_wall, one_wall = None, None, None
        for mode, n in [("serial", 1)] + [("parallel", t) for t in counts]:
            d = out / f"{w}-{a.mech}-{mode}-{n}"
            cmd = [a.rfsim, "run", "-q", "--workload", w, "--timing", "--mech", a.mech, "--config", a.config,
                   "--sample", "off", "--threads", str(n), "--set", f"sim.parallel_sms={'true' if mode == 'parallel' else 'false'}",
                   "--out", str(d), "--overwrite"]  # the script's own folder: a rerun, or --reps, replaces it
            if a.size == "large":
                cmd.append("--large")
            for kv in a.set:
                cmd += ["--set", kv]
            best = None
            for _ in range(max(1, a.reps)):
                rc, wall, cpu_s, rss = run_once(cmd, root)
                if rc != 0:
                    best = None
                    break
                if best is None or wall < best[0]:
                    best = (wall, cpu_s, rss)
            if best is None:
                print(f"{w:<14} {mode:<9} {n:>3} failed: {' '.join(cmd)}", flush=True)
                status = 1
                continue
            wall, cpu_s, rss = best
            stats = json.load(open(d / "stats.json"))
            s = stats["workloads"][w]
            warp = s["summary"]["warp_instrs"]["value"]
            passed = bool(s.get("passed", s["summary"].get("passed", {}).get("value", True)))
            same = "-"
            if mode == "serial":
                serial_wall = wall
            elif base_dir is None:
                base_dir, one_wall = d, wall
                same = "(reference)"
            else:
                diffs = []
                # The run's request records the thread count; the workloads' statistics must not.
                walk(json.load(open(base_dir / "stats.json"))["workloads"], stats["workloads"], "", diffs, 5)
                same = "yes" if not diffs else f"NO: {diffs[0][0]} {diffs[0][1]} vs {diffs[0][2]}"
                status |= bool(diffs)
            if not passed:
                same += " (CPU check FAILED)"
                status = 1
            row = {"workload": w, "mechanism": a.mech, "mode": mode, "threads": n, "wall_s": round(wall, 3),
                   "cpu_s": round(cpu_s, 3), "peak_mib": round(rss, 1), "warp_instrs": warp,
                   "cycles": s["summary"]["cycles"]["value"], "warp_instrs_per_s": round(warp / wall),
                   "speedup_vs_serial": round(serial_wall / wall, 3) if serial_wall else None,
                   "speedup_vs_1_thread": round(one_wall / wall, 3) if one_wall else None, "same_stats": same}
            rows.append(row)
            vs_s = f"{row['speedup_vs_serial']:.2f}x" if row["speedup_vs_serial"] else "-"
            vs_1 = f"{row['speedup_vs_1_thread']:.2f}x" if mode == "parallel" else "-"
            print(f"{w:<14} {mode:<9} {n:>3} {wall:>8.2f} {cpu_s:>8.2f} {rss:>6.0f} {row['warp_instrs_per_s']:>13,} "
                  f"{vs_s:>9} {vs_1:>8}  {same}", flush=True)
    if a.json:
        meta = {"machine": cpu, "cores": os.cpu_count(), "config": a.config, "mechanism": a.mech, "sets": a.set,
                "size": a.size, "reps": a.reps, "date": time.strftime("%Y-%m-%d")}
        pathlib.Path(a.json).write_text(json.dumps({"meta": meta, "runs": rows}, indent=1) + "\n")
    return status


if __name__ == "__main__":
    sys.exit(main())
