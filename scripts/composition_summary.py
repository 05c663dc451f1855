#!/usr/bin/python3
"""The summary of scripts/composition.sh: per pair of mechanisms, whether every run passed its
CPU check, how many launches ran the combined code, and the geometric-mean speedup and warp
instructions (over the baseline) of each mechanism alone and of the two together. Reads each
OUT/<a>_<b>/compare.json and its runs' stats.json; writes OUT/composition.md and prints it.

  scripts/composition_summary.py OUT PAIRS     (PAIRS: e.g. r2d2+cars,regdem+ltrf)
"""
import glob
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # rfsim_tools, beside this file

from rfsim_tools.figures import compare_json, geomean  # noqa: E402
from rfsim_tools.stats import load_stats  # noqa: E402


def main(out, pairs):
    lines = [f"# Composed mechanisms ({out})", "",
             "| pair | configuration | workloads | all checks passed | launches on the combined code | "
             "speedup A / B / A+B (geomean) | warp instructions A / B / A+B vs base (geomean) |",
             "|---|---|---|---|---|---|---|"]
    for p in pairs.split(","):
        a, b = p.split("+")
        d = os.path.join(out, f"{a}_{b}")
        runs = compare_json(d)["runs"]
        cfg = runs[0]["config"] if runs else ""
        names = sorted({r["workload"] for r in runs})
        ok = all(r.get("metrics", {}).get("passed") is True for r in runs)
        base = {r["workload"]: r["metrics"]["warp_instrs"] for r in runs
                if r["variant"] == "base" and r.get("metrics", {}).get("warp_instrs")}

        def speedup(v):
            return geomean([r["speedup"] for r in runs if r["variant"] == v and r.get("speedup") is not None])

        def instrs(v):
            return geomean([r["metrics"]["warp_instrs"] / base[r["workload"]] for r in runs
                            if r["variant"] == v and base.get(r["workload"]) and "warp_instrs" in r.get("metrics", {})])

        both = f"{a}_{b}"
        combined = total = 0
        for f in sorted(glob.glob(os.path.join(d, "runs", "*", both, "*", "stats.json"))):
            for w in load_stats(os.path.dirname(f))["workloads"].values():
                for launch in w.get("launches", []):
                    total += 1
                    combined += launch.get("variant") == f"{a}+{b}"
        lines.append(f"| {a} + {b} | {cfg} | {len(names)} | {'yes' if ok else 'NO'} | {combined} of {total} | "
                     f"{speedup(a):.3f} / {speedup(b):.3f} / {speedup(both):.3f} | "
                     f"{instrs(a):.3f} / {instrs(b):.3f} / {instrs(both):.3f} |")
    text = "\n".join(lines)
    with open(os.path.join(out, "composition.md"), "w") as f:
        f.write(text + "\n")
    print(text)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
