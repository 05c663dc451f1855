#!/usr/bin/env python3
"""The error and speed of sampled simulation, from a comparison that ran each
variant twice: in full, and sampled (docs/sampling.md).

Usage: scripts/sample_error.py DIR [--sampled-suffix -s] [--markdown]

DIR is an `rfsim compare` folder whose variants come in pairs: NAME (full)
and NAME-s (the same with sim.sample=all), the baseline's pair being `base`
and `sampled`. For example:

  rfsim compare --large -w cfd,gol,md5hash --variant sampled:sim.sample=all \\
      --variant cars:+cars --variant cars-s:+cars,sim.sample=all -o DIR --no-report

Prints per workload and variant: the full and sampled cycles, the cycle
error, the host seconds of each run's launches (summary.wall_time) and their ratio; per mechanism: its
speedup over the baseline in full and sampled, and the difference. Then the
median and worst cycle error and speedup error.
"""
import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from rfsim_tools import stats  # noqa: E402


def load(folder):
    """(config, workload, variant) -> (cycles, host seconds of its launches), from each run's
    stats.json under DIR/runs/CONFIG/VARIANT/WORKLOAD (complete runs only: also while the
    comparison is still running)."""
    out = {}
    for f in sorted(Path(folder).glob("runs/*/*/*/stats.json")):
        run_dir, wl = f.parent, f.parent.name
        variant, cfg = run_dir.parent.name, run_dir.parent.parent.name
        try:
            m, _, _ = stats.run_metrics(str(run_dir), wl)
            wall = stats.lookup(stats.workload(stats.load_stats(str(run_dir)), wl)["summary"], "wall_time")
        except (stats.StatsError, KeyError):
            continue
        if m.get("cycles"):
            out[(cfg, wl, variant)] = (m["cycles"], (wall or 0) / 1e6)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder")
    ap.add_argument("--sampled-suffix", default="-s")
    ap.add_argument("--markdown", action="store_true", help="markdown tables")
    a = ap.parse_args()
    runs = load(a.folder)
    sep = " | " if a.markdown else "  "

    def row(cells):
        line = sep.join(str(c) for c in cells)
        print(f"| {line} |" if a.markdown else line)

    def sampled_name(v):
        return "sampled" if v == "base" else v + a.sampled_suffix

    full_variants = sorted({v for (_, _, v) in runs if v != "sampled" and not v.endswith(a.sampled_suffix)})
    cycle_errs, speedup_errs = [], []
    row(["config", "workload", "variant", "full cycles", "sampled cycles", "error %", "full s", "sampled s",
         "faster", "speedup full", "speedup sampled", "difference"])
    if a.markdown:
        row(["---"] * 3 + ["--:"] * 9)
    for (cfg, wl, v) in sorted(k for k in runs if k[2] in full_variants):
        s = runs.get((cfg, wl, sampled_name(v)))
        if not s:
            continue
        (fc, fs), (sc, ss) = runs[(cfg, wl, v)], s
        err = sc / fc - 1.0
        cycle_errs.append(abs(err))
        sp_full = sp_smp = diff = ""
        base, base_s = runs.get((cfg, wl, "base")), runs.get((cfg, wl, "sampled"))
        if v != "base" and base and base_s:
            sp_full, sp_smp = base[0] / fc, base_s[0] / sc
            diff = sp_smp - sp_full
            speedup_errs.append(abs(diff))
            sp_full, sp_smp, diff = f"{sp_full:.3f}", f"{sp_smp:.3f}", f"{diff:+.3f}"
        row([cfg, wl, v, fc, sc, f"{100 * err:+.2f}", f"{fs:.1f}", f"{ss:.1f}",
             f"{fs / ss:.1f}x" if ss else "", sp_full, sp_smp, diff])
    if not cycle_errs:
        print("no pairs of full and sampled runs found", file=sys.stderr)
        return 1
    print()
    print(f"cycle error: median {100 * statistics.median(cycle_errs):.2f} %, worst {100 * max(cycle_errs):.2f} % "
          f"({len(cycle_errs)} pairs)")
    if speedup_errs:
        print(f"speedup error: median {statistics.median(speedup_errs):.4f}, worst {max(speedup_errs):.4f} "
              f"({len(speedup_errs)} mechanism pairs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
