#!/usr/bin/python3
"""The RegDem paper's table and figures from an experiments/regdem.yaml folder
(scripts/regdem_repro.sh: an `rfsim compare` output): Table 1 (registers, blocks per SM, shared
memory), Fig. 6 (the five variants' speedups over nvcc with the geometric
mean), Fig. 7 (each post-pass off, bank-aware on), Fig. 8 (candidate
strategies), Fig. 9 (oracle, predictor, naive and RegDem with every option,
over nvcc; how often the predictor picks the fastest code), each beside the
paper's figure. Writes OUT/regdem_figures.md, fig6.png and fig9.png; prints
the Markdown.

  scripts/regdem_figures.py COMPARE_DIR [--rfsim PATH] [--config titanx]

Fig. 9 reads the oracle run's trials: every distinct code of the search
space measured on each launch (mechanisms.regdem.select=oracle); the
predictor's and the naive scheme's choices are read there, and the
`predictor` run (select=predictor) confirms the predictor's by a run of
its own. Only runs that passed their CPU check count.
"""
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # rfsim_tools, beside this file

from rfsim_tools.figures import arguments, compare_json, geomean, passed_workload as load, value  # noqa: E402

# The paper's Table 1 (RegDem Table 1): registers
# nvcc -> target, and the achieved occupancy nvprof measured.
PAPER_T1 = {
    "cfd_flux": ("cfd", 68, 56, 0.35, 0.54),
    "qtc": ("qtc", 55, 48, 0.51, 0.57),
    "md5hash": ("md5hash", 33, 32, 0.70, 0.94),
    "lj_force": ("md", 34, 32, 0.75, 0.83),
    "gauss_recursive": ("gaussian", 43, 40, 0.58, 0.62),
    "conv_columns": ("conv", 35, 32, 0.73, 0.98),
    "knn_search": ("nn", 35, 32, 0.55, 0.72),
    "corr_pairs": ("pc", 36, 32, 0.54, 0.72),
    "vp_search": ("vp", 34, 32, 0.52, 0.68),
}
PAPER_FIG6 = {"regdem": 1.07, "local": 1.03, "local-shared": 0.90, "local-shared-relax": 1.05}
PAPER_FIG9 = {"oracle": 1.10, "predictor": 1.09}


def main():
    ap = arguments(__doc__)
    ap.add_argument("--config", default="titanx")
    a = ap.parse_args()
    root = a.folder / "runs" / a.config
    cmp = compare_json(a.folder)
    variants = [v["name"] for v in cmp["variants"]]
    workloads = cmp["workloads"]
    runs = {v: {w: load(root / v / w) for w in workloads} for v in variants}

    def cycles(v, w):
        r = runs.get(v, {}).get(w)
        return sum(l["cycles"] for l in r["launches"]) if r else None

    out = []
    # Table 1.
    if "regdem" in variants:
        out += ["## Table 1: registers, blocks per SM and occupancy (theoretical), nvcc -> RegDem", "",
            "| kernel | paper regs | ours regs | ours blocks/SM | ours occupancy | paper achieved occ. | "
            "demoted area B/block |", "|---|---|---|---|---|---|---|"]
    for w in workloads:
        b, r = runs["base"].get(w), runs.get("regdem", {}).get(w)
        if not b or not r:
            continue
        lb, lr = b["launches"][0], r["launches"][0]
        p = PAPER_T1.get(w)
        area = value(lr["mechanisms"].get("regdem", {}).get("area_bytes", 0))
        paper = f"{p[1]} -> {p[2]}" if p else "-"
        pocc = f"{p[3]:.2f} -> {p[4]:.2f}" if p else "-"
        threads = THREADS.get(w)
        o = (lambda n: f"{n * ((threads + 31) // 32) / MAX_WARPS:.3f}") if threads else (lambda n: "-")
        out.append(f"| {w} ({p[0] if p else ''}) | {paper} | {lb['regs_per_thread']} -> {lr['regs_per_thread']} | "
                   f"{lb['blocks_per_sm']} -> {lr['blocks_per_sm']} | {o(lb['blocks_per_sm'])} -> "
                   f"{o(lr['blocks_per_sm'])} | {pocc} | {area} |")
    out.append("")

    def speedups(names, ref="base"):
        rows, cols = [], {n: [] for n in names}
        for w in workloads:
            c0 = cycles(ref, w)
            if not c0:
                continue
            row = [w]
            for n in names:
                c = cycles(n, w)
                s = c0 / c if c else None
                cols[n].append(s)
                row.append(f"{s:.3f}" if s else "-")
            rows.append(row)
        return rows, {n: geomean(v) for n, v in cols.items()}

    fig6 = [n for n in ("regdem", "local", "local-shared", "local-shared-relax") if n in variants]
    rows, g6 = speedups(fig6)
    if fig6:
        out += ["## Fig. 6: speedup over nvcc", "", "| kernel | " + " | ".join(fig6) + " |",
            "|---|" + "---|" * len(fig6)]
        out += ["| " + " | ".join(r) + " |" for r in rows]
        out.append("| **geomean** | " + " | ".join(f"**{g6[n]:.3f}** ({PAPER_FIG6[n]:.2f})" for n in fig6) + " |")
        out += ["", "(paper's geometric means in brackets)", ""]

    for title, names in (("Fig. 7: RegDem cycles / cycles with one option changed (below 1: the option helps)",
                          ["no-redundant", "no-schedule", "no-substitution", "bank-aware"]),
                         ("Fig. 8: RegDem (cfg candidates) cycles / cycles with another strategy",
                          ["static", "conflicts"])):
        names = [n for n in names if n in variants]
        if not names or "regdem" not in variants:
            continue
        rows, g = speedups(names, ref="regdem")
        out += [f"## {title}", "", "| kernel | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
        out += ["| " + " | ".join(r) + " |" for r in rows]
        out += ["| **geomean** | " + " | ".join(f"**{g[n]:.3f}**" for n in names) + " |", ""]

    g9 = {}
    if "oracle" in variants:
        out += ["## Fig. 9: speedup over nvcc of the code each scheme picks (oracle trials)", "",
                "| kernel | oracle | predictor | predictor run | naive | RegDem all options | RegDem best options | "
                "predictor's pick | fastest | right |", "|---|---|---|---|---|---|---|---|---|---|"]
        cols = {k: [] for k in ("oracle", "predictor", "predictor-run", "naive", "all", "best")}
        right = total = 0
        for w in workloads:
            o, c0 = runs["oracle"].get(w), cycles("base", w)
            if not o or not c0:
                continue
            sums = {k: 0 for k in ("oracle", "predictor", "naive", "all", "best")}
            picks, fast, ok = [], [], True
            for l in o["launches"]:
                ch = l["mechanisms"]["regdem"]["choice"]
                cands = {k: {f: value(x) for f, x in v.items() if f != "_desc"} for k, v in ch.items() if k != "_desc"}
                by = lambda flag: next(k for k, v in cands.items() if v[flag] == 1)
                sums["oracle"] += cands[by("fastest")]["cycles"]
                sums["predictor"] += cands[by("predicted")]["cycles"]
                sums["naive"] += cands[by("naive_choice")]["cycles"]
                allopt = cands.get("rd_cfg_1111")
                sums["all"] += allopt["cycles"] if allopt else cands["base"]["cycles"]
                rd = [v["cycles"] for k, v in cands.items() if k.startswith("rd_")]
                sums["best"] += min(rd) if rd else cands["base"]["cycles"]
                picks.append(by("predicted"))
                fast.append(by("fastest"))
                ok = ok and cands[by("predicted")]["cycles"] == cands[by("fastest")]["cycles"]
            total += 1
            right += ok
            pr = cycles("predictor", w)
            s = {k: c0 / v for k, v in sums.items()}
            for k in ("oracle", "predictor", "naive", "all", "best"):
                cols[k].append(s[k])
            cols["predictor-run"].append(c0 / pr if pr else None)
            out.append(f"| {w} | {s['oracle']:.3f} | {s['predictor']:.3f} | "
                       f"{(c0 / pr) if pr else float('nan'):.3f} | {s['naive']:.3f} | {s['all']:.3f} | {s['best']:.3f} | "
                       f"{','.join(sorted(set(picks)))} | {','.join(sorted(set(fast)))} | {'yes' if ok else 'no'} |")
        g9 = {k: geomean(v) for k, v in cols.items()}
        out.append(f"| **geomean** | **{g9['oracle']:.3f}** (1.10) | **{g9['predictor']:.3f}** (1.09) | "
                   f"**{g9['predictor-run']:.3f}** | **{g9['naive']:.3f}** | **{g9['all']:.3f}** | "
                   f"**{g9['best']:.3f}** (Fig. 6: 1.07) | | | "
                   f"**{right} of {total}** (7 of 9) |")
        out += ["", "(paper in brackets; `right`: the predictor's pick runs as fast as the fastest code)", ""]

    if "oracle" not in variants and "predictor" in variants:
        # No oracle run: the predictor against the best code among the
        # variants measured here (a partial oracle over those codes).
        pool = [v for v in variants if v not in ("predictor",) and "scoreboard" not in v]
        out += ["## Fig. 9 (partial): the predictor's pick against the best of the measured variants", "",
                "| kernel | best measured | which | predictor run | predictor's pick | right |",
                "|---|---|---|---|---|---|"]
        cols = {"best": [], "predictor-run": []}
        right = total = 0
        for w in workloads:
            c0, pr = cycles("base", w), cycles("predictor", w)
            if not c0 or not pr:
                continue
            best = min((cycles(v, w), v) for v in pool if cycles(v, w))
            picks = sorted({l["variant"] for l in runs["predictor"][w]["launches"]})
            ok = pr <= best[0]
            total += 1
            right += ok
            cols["best"].append(c0 / best[0])
            cols["predictor-run"].append(c0 / pr)
            out.append(f"| {w} | {c0 / best[0]:.3f} | {best[1]} | {c0 / pr:.3f} | {','.join(picks)} | "
                       f"{'yes' if ok else 'no'} |")
        g9 = {k: geomean(v) for k, v in cols.items()}
        out.append(f"| **geomean** | **{g9['best']:.3f}** (oracle 1.10) | | **{g9['predictor-run']:.3f}** (1.09) | | "
                   f"**{right} of {total}** (7 of 9) |")
        out += ["", "(`right`: the predictor's code runs at least as fast as the best measured variant)", ""]

    text = "\n".join(out)
    (a.folder / "regdem_figures.md").write_text(text + "\n")
    print(text)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("regdem_figures: matplotlib missing, no plots", file=sys.stderr)
        return
    for name, names, paper in (("fig6", fig6, PAPER_FIG6),
                               ("fig9", ["oracle", "predictor"] if "oracle" in variants else [], PAPER_FIG9)):
        if not names:
            continue
        fig, ax = plt.subplots(figsize=(8, 3.2))
        ws = [w for w in workloads if cycles("base", w)]
        width = 0.8 / len(names)
        for i, n in enumerate(names):
            if name == "fig6":
                ys = [cycles("base", w) / cycles(n, w) if cycles(n, w) else 0 for w in ws]
                g = g6[n]
            else:
                ys = cols[n][: len(ws)]
                ys = [y or 0 for y in ys]
                g = g9[n]
            xs = [j + i * width for j in range(len(ws) + 1)]
            ax.bar(xs, ys + [g], width, label=f"{n} (paper {paper[n]:.2f})")
        ax.axhline(1.0, color="k", lw=0.6)
        ax.set_xticks([j + 0.4 - width / 2 for j in range(len(ws) + 1)])
        ax.set_xticklabels(ws + ["geomean"], rotation=30, ha="right", fontsize=8)
        ax.set_ylabel("speedup over nvcc")
        ax.legend(fontsize=7, loc="lower left", ncol=2, framealpha=0.9)
        fig.tight_layout()
        fig.savefig(a.folder / f"{name}.png", dpi=120)
        plt.close(fig)


# Threads per block of each suite kernel (their __launch_bounds__) and the
# titanx SM's warps, for the occupancy column.
MAX_WARPS = 64
THREADS = {"cfd_flux": 192, "qtc": 64, "md5hash": 256, "lj_force": 256, "gauss_recursive": 64,
           "conv_columns": 128, "knn_search": 192, "corr_pairs": 256, "vp_search": 256}

if __name__ == "__main__":
    main()
