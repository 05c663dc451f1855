#!/usr/bin/python3
"""The RegDem paper's table and figures from an experiments/regdem.yaml folder
(scripts/regdem_repro.sh: an `rfsim compare` output): Table 1 (registers, blocks per SM, shared
memory), Fig. 6 (the variants' speedups over nvcc with the geometric mean; RegDem's bar the
best option combination per kernel, as the paper's), Fig. 7 (the best combination with each
of its options off), Fig. 8 (each candidate strategy's best combination), Fig. 9 (oracle,
predictor, naive and RegDem with every option, over nvcc; how often the predictor picks the
fastest technique), each beside the paper's figure. Writes OUT/regdem_figures.md, fig6.png
and fig9.png; prints the Markdown.

  scripts/regdem_figures.py COMPARE_DIR [--rfsim PATH] [--config titanx]

Fig. 7, 8 and 9 read the `regdem` run's trials (mechanisms.regdem.select=best: every
distinct code of RegDem's 48 option combinations measured on the launch, each variant's
cycles and the predictor's and naive scheme's picks under mechanisms.regdem.choice); Fig. 9's
oracle adds nvcc's code and the three comparison variants from their own runs. An `oracle`
run (select=oracle), where there is one, is the same search in one run, shown as a
cross-check; the `predictor` run (select=predictor) confirms the predictor's pick by a run
of its own. Only runs that passed their CPU check count.
"""
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # rfsim_tools, beside this file

from rfsim_tools.figures import arguments, compare_json, geomean, passed_workload as load, sampling_note, value  # noqa: E402

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
PAPER_FIG6 = {"regdem": 1.07, "regdem-default": None, "local": 1.03, "local-shared": 0.90,
              "local-shared-relax": 1.05}
COMPARED = ("local", "local-shared", "local-shared-relax")  # Table 3's comparison variants
OPTIONS = ("bank-aware", "redundant code", "schedule update", "RDV substitution")  # rd_<strategy>_<bits>
STRATEGIES = ("static", "cfg", "conflicts")


def technique(variant):
    """Section 5.7's "spilling technique" of a variant: nvcc, regdem (any option combination)
    or a comparison variant."""
    return "nvcc" if variant == "base" else "regdem" if variant.startswith("rd_") else variant


def choices(run):
    """A run's candidates (mechanisms.regdem.choice) summed over its launches: variant ->
    {cycles, predicted, naive_choice, fastest, chosen, ...}; {} without them."""
    out = {}
    for l in run["launches"] if run else []:
        ch = l.get("mechanisms", {}).get("regdem", {}).get("choice", {})
        for k, v in ch.items():
            if k == "_desc":
                continue
            d = out.setdefault(k, {})
            for f, x in v.items():
                if f != "_desc":
                    d[f] = d.get(f, 0) + value(x)
    return out
PAPER_FIG9 = {"oracle": 1.10, "predictor": 1.09}


def main():
    ap = arguments(__doc__)
    ap.add_argument("--config", default="titanx")
    a = ap.parse_args()
    root = a.folder / "runs" / a.config
    cmp = compare_json(a.folder)
    variants = [v["name"] for v in cmp["variants"]]
    workloads = sorted(cmp["workloads"])  # by name (experiments/regdem.yaml lists the longest runs first)
    runs = {v: {w: load(root / v / w) for w in workloads} for v in variants}

    def trials_of(w):
        """Every RegDem combination's and (oracle) comparison variant's measured cycles: from
        the `regdem` run (select=best), else from an `oracle` run."""
        for v in ("regdem", "oracle"):
            t = choices(runs.get(v, {}).get(w))
            if any(x.get("cycles") and k.startswith("rd_") for k, x in t.items()):
                return t
        return {}

    def cycles(v, w):
        r = runs.get(v, {}).get(w)
        if r:
            return sum(l["cycles"] for l in r["launches"])
        # Without a run of its own: the code the trials measured (one launch per kernel).
        t = trials_of(w)
        if v == "regdem":
            rd = [x["cycles"] for k, x in t.items() if k.startswith("rd_") and x.get("cycles")]
            return min(rd) if rd else None
        return t.get(v, {}).get("cycles") or None

    out = [sampling_note(a.folder), ""]
    # Table 1.
    if "regdem" in variants or "regdem-default" in variants:
        out += ["## Table 1: registers, blocks per SM and occupancy (theoretical), nvcc -> RegDem", "",
            "| kernel | paper regs | ours regs | ours blocks/SM | ours occupancy | paper achieved occ. | "
            "demoted area B/block |", "|---|---|---|---|---|---|---|"]
    for w in workloads:
        b, r = runs["base"].get(w), runs.get("regdem", {}).get(w) or runs.get("regdem-default", {}).get(w)
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

    fig6 = [n for n in ("regdem", "regdem-default") + COMPARED
            if n in variants or (n in ("regdem",) + COMPARED and "oracle" in variants)]
    rows, g6 = speedups(fig6)
    if fig6:
        out += ["## Fig. 6: speedup over nvcc", "",
                "(`regdem`: the best option combination per kernel, measured over all 48 as the paper's "
                "section 5.4 did; `regdem-default`: cfg candidates, the three post-passes, plain compaction)", "",
                "| kernel | " + " | ".join(fig6) + " |", "|---|" + "---|" * len(fig6)]
        out += ["| " + " | ".join(r) + " |" for r in rows]
        paper = lambda n: f" ({PAPER_FIG6[n]:.2f})" if PAPER_FIG6.get(n) else ""
        out.append("| **geomean** | " + " | ".join(f"**{g6[n]:.3f}**{paper(n)}" for n in fig6) + " |")
        if "regdem" in fig6:
            i = 1 + fig6.index("regdem")
            have = [r for r in rows if r[i] != "-"]
            wins = [r[0] for r in have if all(r[1 + fig6.index(n)] == "-" or float(r[i]) >= float(r[1 + fig6.index(n)])
                                              for n in COMPARED if n in fig6)]
            top = max((float(r[i]) for r in have), default=float("nan"))
            out.append(f"| RegDem best of the techniques | {len(wins)} of {len(have)} (paper: 7 of 9); "
                       f"max {top:.3f} (paper: 1.18) |" + " |" * (len(fig6) - 1))
        out += ["", "(paper's geometric means in brackets)", ""]

    # Fig. 7 and 8 from the `regdem` run's trials: every option combination's cycles.
    trials = {w: {k: v for k, v in trials_of(w).items() if k.startswith("rd_")} for w in workloads}
    f7, f8 = [], []
    for w in workloads:
        t = trials[w]
        timed = {k: v for k, v in t.items() if v.get("cycles")}
        if not timed:
            continue
        best = min(timed, key=lambda k: (timed[k]["cycles"], -timed[k].get("options", 0)))
        c = t[best]["cycles"]
        strategy, bits = best.split("_")[1], best.split("_")[2]
        row = [w, best]
        for i in range(4):
            if bits[i] == "0":
                row.append("off")
                continue
            other = t.get(f"rd_{strategy}_{bits[:i]}0{bits[i + 1:]}", {}).get("cycles")
            row.append(c / other if other else None)
        f7.append(row)
        f8.append([w] + [c / min(v["cycles"] for k, v in t.items() if k.startswith(f"rd_{s}_") and v.get("cycles"))
                         if any(k.startswith(f"rd_{s}_") and v.get("cycles") for k, v in t.items()) else None
                         for s in STRATEGIES])
    fmt = lambda x: x if isinstance(x, str) else "-" if x is None else f"{x:.3f}"
    if f7:
        out += ["## Fig. 7: the best combination's cycles / its cycles with one option off (below 1: the option "
                "helps; off: not in the best combination)", "",
                "| kernel | best combination | " + " | ".join(OPTIONS) + " |", "|---|---|" + "---|" * len(OPTIONS)]
        out += ["| " + " | ".join(fmt(x) for x in r) + " |" for r in f7]
        g7 = [geomean([r[2 + i] for r in f7 if not isinstance(r[2 + i], str) and r[2 + i]]) for i in range(4)]
        out += ["| **geomean** (where on) | | " + " | ".join(f"**{g:.3f}**" for g in g7) + " |",
                "", "(paper: the performance passes together about 3 % on average, up to 5 %; bank-conflict "
                "avoidance under 1 %; RDV substitution rarely applicable)", ""]
        out += ["## Fig. 8: each candidate strategy's best combination, over the best (1: the best strategy)", "",
                "| kernel | " + " | ".join(STRATEGIES) + " |", "|---|" + "---|" * len(STRATEGIES)]
        out += ["| " + " | ".join(fmt(x) for x in r) + " |" for r in f8]
        g8 = [geomean([r[1 + i] for r in f8 if r[1 + i]]) for i in range(3)]
        out += ["| **geomean** | " + " | ".join(f"**{g:.3f}**" for g in g8) + " |", "",
                "(paper: cfg is the best overall)", ""]

    # Fig. 9 (section 5.7): the oracle knows "the best variant of the benchmark, including
    # original, local, local-shared, and local-shared-relax from Figure 6" and every RegDem
    # combination: the `regdem` run's trials and the other Fig. 6 runs. The predictor's pick
    # is "right" when it is the spilling technique with the best performance (the paper's
    # count, 7 of 9); `same code` when it is as fast as the fastest code itself.
    per9, g9 = {}, {}
    rt = rc = total = 0
    rows9 = []
    for w in workloads:
        t, c0 = trials_of(w), cycles("base", w)
        if not t or not c0:
            continue
        measured = {k: v["cycles"] for k, v in t.items() if k.startswith("rd_") and v.get("cycles")}
        measured["base"] = c0
        for n in COMPARED:
            if cycles(n, w):
                measured[n] = cycles(n, w)
        fastest = min(measured, key=lambda k: (measured[k], technique(k) != "regdem", -t.get(k, {}).get("options", 0)))
        pick = lambda flag: next((k for k, v in t.items() if v.get(flag)), "base")
        pred, naive = pick("predicted"), pick("naive_choice")
        if runs.get("predictor", {}).get(w):
            pred = runs["predictor"][w]["launches"][0]["variant"]  # what the predictor's own run chose
        if pred not in measured or naive not in measured:
            continue  # the pick is a variant no run measured
        allopt = measured.get("rd_cfg_1111", c0)
        pr = cycles("predictor", w)
        s9 = {"oracle": c0 / measured[fastest], "predictor": c0 / measured[pred], "naive": c0 / measured[naive],
              "all": c0 / allopt, "predictor-run": c0 / pr if pr else None}
        per9[w] = s9
        ok_t = technique(pred) == technique(fastest) or measured[pred] == measured[fastest]
        ok_c = measured[pred] == measured[fastest]
        total += 1
        rt += ok_t
        rc += ok_c
        f = lambda x: "-" if x is None else f"{x:.3f}"
        rows9.append(f"| {w} | {f(s9['oracle'])} | {f(s9['predictor'])} | {f(s9['predictor-run'])} | "
                     f"{f(s9['naive'])} | {f(s9['all'])} | {pred} | {fastest} | {'yes' if ok_t else 'no'} | "
                     f"{'yes' if ok_c else 'no'} |")
    if rows9:
        g9 = {k: geomean([v[k] for v in per9.values() if v[k]]) for k in ("oracle", "predictor", "naive", "all",
                                                                          "predictor-run")}
        out += ["## Fig. 9: speedup over nvcc of the code each scheme picks", "",
                "| kernel | oracle | predictor | predictor run | naive | RegDem all options | predictor's pick | "
                "fastest | right technique | same code |", "|---|---|---|---|---|---|---|---|---|---|"]
        out += rows9
        out.append(f"| **geomean** | **{g9['oracle']:.3f}** (1.10) | **{g9['predictor']:.3f}** (1.09) | "
                   f"**{g9['predictor-run']:.3f}** | **{g9['naive']:.3f}** | **{g9['all']:.3f}** | | | "
                   f"**{rt} of {total}** (7 of 9) | {rc} of {total} |")
        out += ["", f"(paper in brackets; the predictor reaches {g9['predictor'] / g9['oracle'] * 100:.1f} % of the "
                "oracle, the paper's 99.0 %)", ""]

    if "oracle" in variants:
        out += ["## Fig. 9 cross-check: the oracle run (select=oracle: the whole search space measured in one run)", "",
                "| kernel | oracle | predictor | predictor run | naive | RegDem all options | RegDem best options | "
                "predictor's pick | fastest | right |", "|---|---|---|---|---|---|---|---|---|---|"]
        colsx = {k: [] for k in ("oracle", "predictor", "predictor-run", "naive", "all", "best")}
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
                colsx[k].append(s[k])
            colsx["predictor-run"].append(c0 / pr if pr else None)
            out.append(f"| {w} | {s['oracle']:.3f} | {s['predictor']:.3f} | "
                       f"{(c0 / pr) if pr else float('nan'):.3f} | {s['naive']:.3f} | {s['all']:.3f} | {s['best']:.3f} | "
                       f"{','.join(sorted(set(picks)))} | {','.join(sorted(set(fast)))} | {'yes' if ok else 'no'} |")
        gx = {k: geomean(v) for k, v in colsx.items()}
        out.append(f"| **geomean** | **{gx['oracle']:.3f}** (1.10) | **{gx['predictor']:.3f}** (1.09) | "
                   f"**{gx['predictor-run']:.3f}** | **{gx['naive']:.3f}** | **{gx['all']:.3f}** | "
                   f"**{gx['best']:.3f}** (Fig. 6: 1.07) | | | "
                   f"**{right} of {total}** (7 of 9) |")
        out += ["", "(paper in brackets; `right`: the predictor's pick runs as fast as the fastest code)", ""]

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
                               ("fig9", ["oracle", "predictor"] if per9 else [], PAPER_FIG9)):
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
                ys = [per9.get(w, {}).get(n) or 0 for w in ws]
                g = g9[n]
            xs = [j + i * width for j in range(len(ws) + 1)]
            ax.bar(xs, ys + [g], width, label=f"{n} (paper {paper[n]:.2f})" if paper.get(n) else n)
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
