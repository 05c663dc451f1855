#!/usr/bin/python3
"""The R2D2 paper's Table 3 from an experiments/r2d2-table3.yaml folder (scripts/r2d2_table3.sh:
an `rfsim compare` output on the TITAN V configuration): backprop's warp-instruction
reduction and speedup over the blocks per grid, beside the paper's. Writes
OUT/r2d2_table3.md and prints it.

  scripts/r2d2_table3.py COMPARE_DIR [--rfsim PATH]
"""
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # rfsim_tools, beside this file

from rfsim_tools.figures import arguments, compare_json  # noqa: E402

# The paper's Table 3: warp-instruction reduction (%) and speedup per BP_N.
PAPER = {"r2_bp04": (38.3, 1.35), "r2_bp08": (38.8, 1.35), "r2_bp16": (39.2, 1.36), "r2_bp32": (39.6, 1.36),
         "r2_bp64": (39.7, 1.36)}


def main():
    out = arguments(__doc__).parse_args().folder
    rows = {}
    for r in compare_json(out)["runs"]:
        rows.setdefault(r["workload"], {})[r["variant"]] = r
    lines = [f"# R2D2 Table 3: backprop over the blocks per grid ({out})", "",
             "| workload | input units | blocks | warp instructions base | R2D2 | reduction | paper | speedup | paper |",
             "|---|---|---|---|---|---|---|---|---|"]
    passed = lambda r: r is not None and r.get("metrics", {}).get("passed") is True
    for w in sorted(rows, key=lambda w: int(w[5:])):
        b, r = rows[w].get("base"), rows[w].get("r2d2")
        if not passed(b) or not passed(r):
            lines.append(f"| {w} | | | failed | | | | | |")
            continue
        n = int(w[5:]) * 1024
        bi, ri = float(b["metrics"]["warp_instrs"]), float(r["metrics"]["warp_instrs"])
        pr, ps = PAPER[w]
        lines.append(f"| {w} | {n} | {n // 16} | {bi:.0f} | {ri:.0f} | {100 * (1 - ri / bi):.1f} % | {pr} % | "
                     f"{float(r['speedup']):.3f} | {ps} |")
    text = "\n".join(lines)
    (out / "r2d2_table3.md").write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
