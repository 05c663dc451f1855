#!/usr/bin/python3
"""The R2D2 paper's figures from an experiments/r2d2.yaml folder (scripts/r2d2_repro.sh:
an `rfsim compare` output on the TITAN V configuration), each beside the paper's:

  Fig. 4   thread instructions of the ideal WP, TB and LN machines against
           the original code (the `baselines` runs' counters);
  Fig. 12  dynamic warp instructions of R2D2 (its runs) and of DAC, DARSIE
           and DARSIE+Scalar (the `baselines` runs' counters) against the
           original code;
  Fig. 13  speedup, end-to-end time (the reference's cycles / R2D2's, and
           the timed DAC, DARSIE and DARSIE+Scalar runs'); the reference is
           the `scalar` run (the paper's baseline: a scalar pipeline for
           operations on uniform operands) where the folder has one, else
           `base`;
  Figs. 14-15  the linear blocks' share of R2D2's instructions and of its
           SM time (from each SM's start to its thread-index parts done);
  Fig. 16  energy (the energy model's total, R2D2 and the timed baselines
           against the reference);
  sec. 5.4 the speedup with 7 more fetch cycles and 5 more register ID
           calculation cycles;
  and why kernels ran their original code (the R2D2 runs' launches'
  notes.r2d2).

Geometric means over the workloads whose runs all passed. Writes
OUT/r2d2_figures.md, fig12.png and fig13.png; prints the Markdown.

  scripts/r2d2_figures.py COMPARE_DIR [--rfsim PATH]
"""
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # rfsim_tools, beside this file

from rfsim_tools.figures import arguments, compare_json, geomean, launch_sum, passed_workload as load, sampling_note  # noqa: E402
from rfsim_tools.figures import run_workload  # noqa: E402
from rfsim_tools.figures import value as val  # noqa: E402

PAPER4 = {"WP": 27, "TB": 22, "LN": 33}
PAPER12 = {"R2D2": 28, "DAC": 20, "DARSIE": 18, "DARSIE+Scalar": 19}
PAPER13 = {"R2D2": 1.25, "DAC": 1.15, "DARSIE": 1.14, "DARSIE+Scalar": 1.14}
PAPER16 = {"R2D2": 17, "DAC": 9, "DARSIE": 8, "DARSIE+Scalar": 9}


def msum(r, key):
    return launch_sum(r, "r2d2", key)


def gsum(r, key):
    """Summed over the launches' detailed parts (gpu.*): what the SMs ran in detail (warp
    instructions as issued: the linear blocks' instructions the fetch logic runs are not)."""
    return sum(val(l["gpu"][key]) for l in r["launches"])


def total(r, key):
    """The run's whole count (summary.*): under sampling (sim.sample) the launches' cycles with
    the extrapolated ones, where gpu.cycles holds the detailed part alone."""
    return val(r["summary"][key])


def original_code(variant_dir, workloads):
    """{(workload, kernel): why} for the kernels whose last launch in the runs under variant_dir
    ran the original code: the launch's note (stats.json launches[].notes.r2d2). A run whose
    CPU check failed counts too; a missing one has none."""
    reasons = {}
    for w in workloads:
        last = {}
        for launch in (run_workload(variant_dir / w) or {}).get("launches", []):
            last[launch["kernel"]] = launch.get("notes", {}).get("r2d2")
        reasons.update({(w, k): why for k, why in last.items() if why})
    return reasons


def main():
    a = arguments(__doc__).parse_args()
    cmp = compare_json(a.folder)
    root = next((a.folder / "runs").iterdir())  # the one configuration
    config = root.name
    variants = ["base"] + [v["name"] for v in cmp["variants"]]
    workloads = cmp["workloads"]
    runs = {v: {w: load(root / v / w) for w in workloads} for v in variants}
    ok = [w for w in workloads if all(runs[v].get(w) for v in ("base", "scalar", "r2d2", "baselines") if v in runs)]

    def cycles(v, w):
        r = runs.get(v, {}).get(w)
        return total(r, "cycles") if r else None

    def energy(v, w):
        r = runs.get(v, {}).get(w)
        return val(r["total"]["energy"]["total"]) if r else None

    out = [f"# R2D2 reproduction ({a.folder})", "",
           f"Configuration {config}; {len(ok)} of {len(workloads)} workloads with every run passing.", "",
           sampling_note(a.folder), ""]

    # Fig. 4 and Fig. 12: reductions from the counters.
    rows, g4, g12 = [], {k: [] for k in PAPER4}, {k: [] for k in PAPER12}
    for w in ok if "baselines" in runs else []:  # the counters come from the baselines variant
        b, r = runs["baselines"][w], runs["r2d2"][w]
        ow, ot = msum(b, "observed_warp_instrs"), msum(b, "observed_thread_instrs")
        base_w = gsum(runs["base"][w], "warp_instrs")
        if not ow or not ot or not base_w:
            continue
        f4 = {"WP": msum(b, "wp_thread_instrs") / ot, "TB": msum(b, "tb_thread_instrs") / ot,
              "LN": msum(b, "ln_thread_instrs") / ot}
        f12 = {"R2D2": gsum(r, "warp_instrs") / base_w, "DAC": msum(b, "dac_warp_instrs") / ow,
               "DARSIE": msum(b, "darsie_warp_instrs") / ow,
               "DARSIE+Scalar": (msum(b, "darsie_warp_instrs") - msum(b, "scalar_warp_instrs")) / ow}
        for k in f4:
            g4[k].append(f4[k])
        for k in f12:
            g12[k].append(f12[k])
        rows.append((w, f4, f12))
    if "baselines" not in runs:
        out += ["Figs. 4 and 12 count the `baselines` variant's runs, which this folder does not have.", ""]
    out += ["## Fig. 4: thread instructions left by the ideal machines (reduction against the original code)", "",
            "| workload | WP | TB | LN |", "|---|---|---|---|"]
    for w, f4, _ in rows:
        out.append(f"| {w} | " + " | ".join(f"{100 * (1 - f4[k]):.1f} %" for k in PAPER4) + " |")
    out.append("| **geomean** | " + " | ".join(f"**{100 * (1 - geomean(g4[k])):.1f} %**" for k in PAPER4) + " |")
    out.append("| paper | " + " | ".join(f"{PAPER4[k]} %" for k in PAPER4) + " |")
    out += ["", "## Fig. 12: dynamic warp instructions (reduction against the original code)", "",
            "| workload | R2D2 | DAC | DARSIE | DARSIE+Scalar |", "|---|---|---|---|---|"]
    for w, _, f12 in sorted(rows, key=lambda r: r[2]["R2D2"]):
        out.append(f"| {w} | " + " | ".join(f"{100 * (1 - f12[k]):.1f} %" for k in PAPER12) + " |")
    out.append("| **geomean** | " + " | ".join(f"**{100 * (1 - geomean(g12[k])):.1f} %**" for k in PAPER12) + " |")
    out.append("| paper | " + " | ".join(f"{PAPER12[k]} %" for k in PAPER12) + " |")

    # Fig. 13, latency study, Fig. 16, against the paper's baseline (with a
    # scalar pipeline) where it ran.
    ref = "scalar" if "scalar" in runs else "base"
    ref_name = "the baseline with a scalar pipeline" if ref == "scalar" else "the original code"
    out += ["", f"## Fig. 13 and Fig. 16: speedup (end-to-end cycles of {ref_name} / the variant's), "
            "energy (variant / reference), section 5.4", "",
            f"| workload | {ref} cycles | R2D2 | DAC | DARSIE | DARSIE+Scalar | +7 fetch | +5 ID calc | "
            "energy R2D2 | DAC | DARSIE | DARSIE+Scalar |", "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    timed = {"R2D2": "r2d2", "DAC": "dac", "DARSIE": "darsie", "DARSIE+Scalar": "darsie_scalar"}
    sp = {k: [] for k in timed}
    en = {k: [] for k in timed}
    f7, i5, s13 = [], [], []
    fmt = lambda x: f"{x:.3f}" if x else "-"
    for w in ok:
        c0, e0 = cycles(ref, w), energy(ref, w)
        s = {k: (c0 / cycles(v, w) if cycles(v, w) else None) for k, v in timed.items()}
        e = {k: (energy(v, w) / e0 if energy(v, w) and e0 else None) for k, v in timed.items()}
        s7 = c0 / cycles("fetch7", w) if cycles("fetch7", w) else None
        s5 = c0 / cycles("idcalc5", w) if cycles("idcalc5", w) else None
        for k in timed:
            if s[k]:
                sp[k].append(s[k])
            if e[k]:
                en[k].append(e[k])
        f7.append(s7)
        i5.append(s5)
        s13.append(s)
        out.append(f"| {w} | {c0} | " + " | ".join(fmt(s[k]) for k in timed) + f" | {fmt(s7)} | {fmt(s5)} | " +
                   " | ".join(fmt(e[k]) for k in timed) + " |")
    gm = lambda v: f"**{geomean(v):.3f}**" if v and all(v) else "-"
    out.append("| **geomean** | | " + " | ".join(gm(sp[k]) for k in timed) + f" | {gm(f7)} | {gm(i5)} | " +
               " | ".join(gm(en[k]) for k in timed) + " |")
    out.append("| paper | | " + " | ".join(str(PAPER13[k]) for k in timed) + " | -1 % | -1 % | " +
               " | ".join(f"{1 - PAPER16[k] / 100:.2f}" for k in timed) + " |")
    out += ["", "DAC, DARSIE and DARSIE+Scalar are timed on the original code with the instructions each skips "
            "free (docs/r2d2.md); DARSIE+Scalar's scalar instructions run on the SM's scalar pipeline.", ""]
    if ref == "scalar":
        b = [cycles("base", w) / cycles("scalar", w) for w in ok if cycles("base", w) and cycles("scalar", w)]
        eb = [energy("scalar", w) / energy("base", w) for w in ok if energy("base", w) and energy("scalar", w)]
        if b and eb:
            out += [f"The scalar pipeline itself: the baseline with it is {geomean(b):.3f}x as fast as without "
                    f"(geomean), at {geomean(eb):.3f}x the energy.", ""]
    sp = sp["R2D2"]

    # Figs. 14-15: the linear blocks' share.
    out += ["## Figs. 14-15: the linear blocks' share of R2D2's instructions and SM time", "",
            "| workload | linear instructions | of warp instructions | linear-phase SM time |", "|---|---|---|---|"]
    shares, tshares = [], []
    for w in ok:
        r = runs["r2d2"][w]
        lin, tot = msum(r, "linear_instrs"), gsum(r, "warp_instrs")
        sms = val(r["launches"][0]["gpu"]["num_sms"])
        ph = msum(r, "startup_cycles") / (sms * gsum(r, "cycles")) if gsum(r, "cycles") else 0
        shares.append(lin / tot if tot else 0)
        tshares.append(ph)
        out.append(f"| {w} | {lin} | {100 * lin / tot:.2f} % | {100 * ph:.2f} % |")
    if shares:
        out.append(f"| **mean** | | **{100 * sum(shares) / len(shares):.2f} %** | "
                   f"**{100 * sum(tshares) / len(tshares):.2f} %** |")
    out += ["| paper | | ~1 % (LUD 19 %) | ~1 % |", ""]

    # Why kernels kept their code.
    reasons = original_code(root / "r2d2", workloads)
    if reasons:
        out += ["## Kernels that ran their original code", "", "| workload | kernel | why |", "|---|---|---|"]
        out += [f"| {w} | {k} | {why} |" for (w, k), why in sorted(reasons.items())]
        out.append("")

    text = "\n".join(out)
    (a.folder / "r2d2_figures.md").write_text(text + "\n")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        if rows:
            names = [w for w, _, _ in rows]
            fig, ax = plt.subplots(figsize=(max(8, 0.45 * len(names)), 3.6))
            wdt = 0.2
            for i, k in enumerate(PAPER12):
                ax.bar([j + (i - 1.5) * wdt for j in range(len(names))],
                       [100 * (1 - f12[k]) for _, _, f12 in rows], wdt, label=k)
            ax.set_xticks(range(len(names)))
            ax.set_xticklabels(names, rotation=60, ha="right", fontsize=7)
            ax.set_ylabel("warp-instruction reduction (%)")
            ax.set_title("Fig. 12")
            ax.legend(fontsize=7)
            fig.tight_layout()
            fig.savefig(a.folder / "fig12.png", dpi=120)
            fig, ax = plt.subplots(figsize=(max(8, 0.45 * len(ok)), 3.6))
            for i, k in enumerate(timed):
                ax.bar([j + (i - 1.5) * wdt for j in range(len(ok))], [x[k] or 0 for x in s13], wdt, label=k)
            ax.axhline(1.0, color="k", lw=0.8)
            ax.set_xticks(range(len(ok)))
            ax.set_xticklabels(ok, rotation=60, ha="right", fontsize=7)
            ax.set_ylabel(f"speedup over {ref_name}")
            ax.set_title(f"Fig. 13 (geomean R2D2 {geomean(sp):.3f}; paper 1.25)")
            ax.legend(fontsize=7)
            fig.tight_layout()
            fig.savefig(a.folder / "fig13.png", dpi=120)
    except ImportError:
        pass
    print(text)


if __name__ == "__main__":
    main()
