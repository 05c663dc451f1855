#!/usr/bin/env python3
"""CARS paper figures from a compare folder (experiments/cars.yaml, scripts/cars_repro.sh):
Fig. 8, 9, 10, 12, 15, 16, 17 and Table III, each beside the paper's values, as figures.md,
figures.json and PNG plots in DIR/figures/.

Usage: scripts/cars_figures.py DIR [--rfsim PATH]

Every number comes from DIR/compare.json and the runs' stats.json; a missing or failed run
leaves its cell empty and is listed. Best-SWL is the best of the swl* variants per workload
(an oracle, as in the paper). Energy efficiency is baseline energy / variant energy for the
same work (the paper does not define it beyond "normalised to V100").
"""
import json
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # rfsim_tools, beside this file

from rfsim_tools.common import geomean  # noqa: E402
from rfsim_tools.figures import arguments, compare_json, sampling_note, value as val  # noqa: E402
from rfsim_tools.stats import load_stats  # noqa: E402

PAPER = {
    "fig8": {"cars": 1.26},
    "fig9": {"spill_fill_change": -0.40},
    "fig12": {"mpki_change": -0.35},
    "fig15": {"cars": 1.28},
    "fig16": {"lto": 1.28, "cars": 1.26},
    "fig17": {"base": [1.02, 1.03, 1.03], "cars": [1.28, 1.29, 1.29]},
    "table3": {"trap_share": 0.00014, "bytes_per_call": 0.78},
    "fig2": {"spill_share": 0.404},
}
SWL = ["swl1", "swl2", "swl3", "swl4", "swl8", "swl16"]


def flat(stats, wl):
    """The run's totals: gpu group and the first mechanism group."""
    w = stats["workloads"][wl]["total"]
    return w["gpu"], w.get("mechanisms", {})


def load(d):
    comp = compare_json(d)
    runs, missing = {}, []
    for r in comp["runs"]:
        key = (r["workload"], r["variant"])
        if r.get("status") != "complete" or not r.get("metrics", {}).get("passed"):
            missing.append(f"{r['variant']}/{r['workload']}: {r.get('status')} {r.get('error', '')}".strip())
            continue
        st = load_stats(os.path.join(d, r["dir"]))
        wl = next(iter(st["workloads"]))
        gpu, mech = flat(st, wl)
        runs[key] = {"m": r["metrics"], "gpu": gpu, "mech": mech}
    return comp, runs, missing


def fmt(x, nd=3):
    return "" if x is None else f"{x:.{nd}f}"


def main():
    d = str(arguments(__doc__).parse_args().folder)
    comp, runs, missing = load(d)
    wls = sorted({w for w, _ in runs})
    cyc = lambda w, v: runs[(w, v)]["m"]["cycles"] if (w, v) in runs else None
    sp = lambda w, v: (cyc(w, "base") / cyc(w, v)) if cyc(w, "base") and cyc(w, v) else None
    res = {"workloads": wls, "missing": missing, "paper": PAPER, "sampling": sampling_note(d)}

    # Fig. 8: speedups, Best-SWL as the oracle over the swl variants.
    f8 = {}
    for w in wls:
        swl = [(sp(w, v), v) for v in SWL if sp(w, v)]
        best = max(swl) if swl else (None, None)
        f8[w] = {"ivw": sp(w, "ivw"), "10MB-L1": sp(w, "10MB-L1"), "best-swl": best[0], "best-swl-limit": best[1],
                 "cars": sp(w, "cars")}
    f8["geomean"] = {k: geomean([f8[w][k] for w in wls]) for k in ("ivw", "10MB-L1", "best-swl", "cars")}
    res["fig8"] = f8

    # Fig. 9 / Fig. 2: L1D accesses by kind, baseline vs CARS; the baseline's local (spill/fill) share.
    f9 = {}
    for w in wls:
        row = {}
        for v in ("base", "cars"):
            if (w, v) not in runs:
                continue
            m = runs[(w, v)]["m"]
            row[v] = {"local": m["l1d.local_load"] + m["l1d.local_store"],
                      "global": m["l1d.global_load"] + m["l1d.global_store"] + m["l1d.atomic"],
                      "spill_fill_instrs": m["instrs.save"] + m["instrs.restore"] + m["instrs.spill"] + m["instrs.fill"],
                      "accesses": m["l1d.accesses"]}
        if "base" in row:
            row["base_local_share"] = row["base"]["local"] / row["base"]["accesses"] if row["base"]["accesses"] else 0
        if "base" in row and "cars" in row and row["base"]["local"]:
            row["local_change"] = row["cars"]["local"] / row["base"]["local"] - 1
        f9[w] = row
    shares = [f9[w]["base_local_share"] for w in wls if "base_local_share" in f9[w]]
    changes = [f9[w]["local_change"] for w in wls if "local_change" in f9[w]]
    f9["mean"] = {"base_local_share": sum(shares) / len(shares) if shares else None,
                  "local_change": sum(changes) / len(changes) if changes else None}
    res["fig9"] = f9

    # Fig. 10: ALL-HIT vs CARS.
    f10 = {w: {"all-hit": sp(w, "all-hit"), "cars": sp(w, "cars")} for w in wls}
    f10["geomean"] = {k: geomean([f10[w][k] for w in wls]) for k in ("all-hit", "cars")}
    res["fig10"] = f10

    # Fig. 12: L1D misses per thousand warp instructions.
    f12 = {}
    for w in wls:
        row = {}
        for v in ("base", "cars"):
            if (w, v) in runs:
                g = runs[(w, v)]["gpu"]
                row[v] = 1000.0 * val(g, "l1d", "misses") / max(1, val(g, "warp_instrs"))
        if row.get("base"):
            row["change"] = row.get("cars", 0) / row["base"] - 1 if "cars" in row else None
        f12[w] = row
    ch = [f12[w]["change"] for w in wls if f12[w].get("change") is not None]
    f12["mean"] = {"change": sum(ch) / len(ch) if ch else None}
    res["fig12"] = f12

    # Fig. 15: energy efficiency, baseline energy / variant energy (same work).
    def eff(w, v):
        if (w, "base") not in runs or (w, v) not in runs:
            return None
        return runs[(w, "base")]["m"]["energy.total"] / runs[(w, v)]["m"]["energy.total"]
    f15 = {}
    for w in wls:
        best = f8[w]["best-swl-limit"]
        f15[w] = {"ivw": eff(w, "ivw"), "10MB-L1": eff(w, "10MB-L1"),
                  "best-swl": eff(w, best) if best else None, "cars": eff(w, "cars")}
    f15["geomean"] = {k: geomean([f15[w][k] for w in wls]) for k in ("ivw", "10MB-L1", "best-swl", "cars")}
    res["fig15"] = f15

    # Fig. 16: the fully inlined code (the LTO baseline: rfsim run --code inlined, variant @inlined)
    # and CARS, each over the baseline (recursion and virtual calls stay calls when inlined).
    f16 = {}
    for w in wls:
        f16[w] = {"lto": sp(w, "inlined"), "cars": sp(w, "cars")}
    f16["geomean"] = {k: geomean([f16[w][k] for w in wls]) for k in ("lto", "cars")}
    res["fig16"] = f16

    # Fig. 17: L1D ports 2x/4x/8x, baseline and CARS, over the 1x baseline.
    f17 = {}
    for w in wls:
        f17[w] = {f"{pre}{n}x": sp(w, f"{pre}l1x{n}") for pre in ("", "cars-") for n in (2, 4, 8)}
    f17["geomean"] = {k: geomean([f17[w][k] for w in wls]) for k in f17[wls[0]]} if wls else {}
    res["fig17"] = f17

    # Table III: traps under CARS.
    t3 = {}
    tot_calls = tot_traps = tot_bytes = tot_ctx = 0
    for w in wls:
        if (w, "cars") not in runs:
            continue
        c = runs[(w, "cars")]["mech"].get("cars", {})
        calls = val(c, "call_ops") or 0
        traps = val(c, "overflow_traps") or 0
        # The paper's bytes per call include the barrier context switches' (section VI-C).
        byts = sum(val(c, k) or 0 for k in ("trap_spill_bytes", "trap_fill_bytes", "ctx_save_bytes", "ctx_restore_bytes"))
        t3[w] = {"calls": calls, "traps": traps, "trap_share": traps / calls if calls else 0,
                 "ctx_switches": val(c, "ctx_switches") or 0,
                 "bytes_per_call": byts / calls if calls else 0, "regs_per_warp": val(c, "regs_per_warp"),
                 "levels": val(c, "levels"), "level_low": val(c, "level_low_regs"), "level_high": val(c, "level_high_regs")}
        tot_calls += calls
        tot_traps += traps
        tot_bytes += byts
        tot_ctx += t3[w]["ctx_switches"]
    t3["all"] = {"calls": tot_calls, "traps": tot_traps, "trap_share": tot_traps / tot_calls if tot_calls else 0,
                 "ctx_switches": tot_ctx,
                 "bytes_per_call": tot_bytes / tot_calls if tot_calls else 0}
    res["table3"] = t3

    out = os.path.join(d, "figures")
    os.makedirs(out, exist_ok=True)
    tmp = os.path.join(out, "figures.json.tmp")
    json.dump(res, open(tmp, "w"), indent=1)
    os.replace(tmp, os.path.join(out, "figures.json"))
    md = markdown(res, wls)
    tmp = os.path.join(out, "figures.md.tmp")
    open(tmp, "w").write(md)
    os.replace(tmp, os.path.join(out, "figures.md"))
    plots(res, wls, out)
    print(f"cars_figures: {os.path.join(out, 'figures.md')}")
    return 0


def markdown(res, wls):
    L = ["# CARS paper figures, measured\n", res["sampling"] + "\n"]
    f8 = res["fig8"]
    L.append("## Fig. 8: speedup over the baseline (paper: CARS geomean 1.26)\n")
    L.append("| workload | IVW | 10 MB L1 | Best-SWL (limit) | CARS |\n|---|---:|---:|---:|---:|")
    for w in wls + ["geomean"]:
        r = f8[w]
        lim = f" ({r['best-swl-limit']})" if r.get("best-swl-limit") else ""
        L.append(f"| {w} | {fmt(r['ivw'])} | {fmt(r['10MB-L1'])} | {fmt(r['best-swl'])}{lim} | {fmt(r['cars'])} |")
    f9 = res["fig9"]
    L.append("\n## Fig. 9 and Fig. 2: L1D accesses by kind (paper: spills/fills 40.4 % of L1D accesses; -40 % with CARS)\n")
    L.append("| workload | base local | base global | base local share | CARS local | CARS global | local change |\n|---|---:|---:|---:|---:|---:|---:|")
    for w in wls:
        r = f9[w]
        b, c = r.get("base", {}), r.get("cars", {})
        L.append(f"| {w} | {b.get('local', '')} | {b.get('global', '')} | {fmt(r.get('base_local_share'))} | "
                 f"{c.get('local', '')} | {c.get('global', '')} | {fmt(r.get('local_change'))} |")
    L.append(f"| mean | | | {fmt(f9['mean']['base_local_share'])} | | | {fmt(f9['mean']['local_change'])} |")
    f10 = res["fig10"]
    L.append("\n## Fig. 10: ALL-HIT vs CARS (speedup over the baseline)\n")
    L.append("| workload | ALL-HIT | CARS |\n|---|---:|---:|")
    for w in wls + ["geomean"]:
        L.append(f"| {w} | {fmt(f10[w]['all-hit'])} | {fmt(f10[w]['cars'])} |")
    f12 = res["fig12"]
    L.append("\n## Fig. 12: L1D misses per thousand warp instructions (paper: -35 % on average)\n")
    L.append("| workload | base | CARS | change |\n|---|---:|---:|---:|")
    for w in wls:
        r = f12[w]
        L.append(f"| {w} | {fmt(r.get('base'), 2)} | {fmt(r.get('cars'), 2)} | {fmt(r.get('change'))} |")
    L.append(f"| mean | | | {fmt(f12['mean']['change'])} |")
    f15 = res["fig15"]
    L.append("\n## Fig. 15: energy efficiency over the baseline (paper: CARS +28 %)\n")
    L.append("| workload | IVW | 10 MB L1 | Best-SWL | CARS |\n|---|---:|---:|---:|---:|")
    for w in wls + ["geomean"]:
        r = f15[w]
        L.append(f"| {w} | {fmt(r['ivw'])} | {fmt(r['10MB-L1'])} | {fmt(r['best-swl'])} | {fmt(r['cars'])} |")
    f16 = res["fig16"]
    L.append("\n## Fig. 16: fully inlined code (LTO) vs CARS, speedup over the baseline (paper: LTO 1.28, CARS 1.26)\n")
    L.append("| workload | inlined (LTO) | CARS |\n|---|---:|---:|")
    for w in wls + ["geomean"]:
        r = f16[w]
        L.append(f"| {w} | {fmt(r['lto'])} | {fmt(r['cars'])} |")
    f17 = res["fig17"]
    L.append("\n## Fig. 17: L1D ports 2x/4x/8x over the 1-port baseline (paper: base 1.02/1.03/1.03, CARS 1.28/1.29/1.29)\n")
    L.append("| workload | base 2x | base 4x | base 8x | CARS 2x | CARS 4x | CARS 8x |\n|---|---:|---:|---:|---:|---:|---:|")
    for w in wls + ["geomean"]:
        r = f17.get(w, {})
        L.append("| " + w + " | " + " | ".join(fmt(r.get(k)) for k in ("2x", "4x", "8x", "cars-2x", "cars-4x", "cars-8x")) + " |")
    t3 = res["table3"]
    L.append("\n## Table III: traps under CARS (paper: only PTA traps, 0.014 % of calls, 0.78 B per call)\n")
    L.append("| workload | calls | traps | share of calls | barrier context switches | bytes per call (traps and switches) | registers per warp (levels: low..high) |\n|---|---:|---:|---:|---:|---:|---|")
    for w in wls:
        if w not in t3:
            continue
        r = t3[w]
        lv = f"{r['regs_per_warp']} ({r['levels']}: {r['level_low']}..{r['level_high']})" if r.get("levels") else f"{r['regs_per_warp']}"
        L.append(f"| {w} | {r['calls']} | {r['traps']} | {100 * r['trap_share']:.3f} % | {r.get('ctx_switches', 0)} | {r['bytes_per_call']:.1f} | {lv} |")
    a = t3["all"]
    L.append(f"| all | {a['calls']} | {a['traps']} | {100 * a['trap_share']:.3f} % | {a.get('ctx_switches', 0)} | {a['bytes_per_call']:.1f} | |")
    if res["missing"]:
        L.append("\n## Runs missing or failed\n")
        L += [f"- {m}" for m in res["missing"]]
    return "\n".join(L) + "\n"


def plots(res, wls, out):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("cars_figures: matplotlib missing, no plots", file=sys.stderr)
        return
    def bars(name, table, keys, labels, title, ylabel, ref=None):
        rows = wls + ["geomean"]
        fig, ax = plt.subplots(figsize=(max(6, 0.8 * len(rows) * len(keys) / 2 + 2), 3.6))
        width = 0.8 / len(keys)
        for i, k in enumerate(keys):
            ys = [table.get(w, {}).get(k) or 0 for w in rows]
            ax.bar([x + i * width for x in range(len(rows))], ys, width, label=labels[i])
        ax.axhline(1.0, color="black", linewidth=0.8)
        if ref:
            ax.axhline(ref, color="red", linestyle="--", linewidth=0.8, label=f"paper CARS geomean {ref}")
        ax.set_xticks([x + 0.4 - width / 2 for x in range(len(rows))])
        ax.set_xticklabels(rows, rotation=40, ha="right", fontsize=8)
        ax.set_ylabel(ylabel)
        ax.set_title(title)
        ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(os.path.join(out, name), dpi=110)
        plt.close(fig)
    bars("fig8_speedup.png", res["fig8"], ["ivw", "10MB-L1", "best-swl", "cars"],
         ["Idealized VW", "10 MB L1", "Best-SWL", "CARS"], "Fig. 8: speedup over the V100 baseline", "speedup", 1.26)
    bars("fig10_allhit.png", res["fig10"], ["all-hit", "cars"], ["ALL-HIT", "CARS"],
         "Fig. 10: ALL-HIT vs CARS", "speedup")
    bars("fig15_energy.png", res["fig15"], ["ivw", "10MB-L1", "best-swl", "cars"],
         ["Idealized VW", "10 MB L1", "Best-SWL", "CARS"], "Fig. 15: energy efficiency", "baseline energy / energy", 1.28)
    bars("fig16_inlined.png", res["fig16"], ["lto", "cars"], ["fully inlined (LTO)", "CARS"],
         "Fig. 16: fully inlined code vs CARS", "speedup over the baseline", 1.26)
    bars("fig17_ports.png", res["fig17"], ["2x", "4x", "8x", "cars-2x", "cars-4x", "cars-8x"],
         ["base 2x", "base 4x", "base 8x", "CARS 2x", "CARS 4x", "CARS 8x"], "Fig. 17: L1D ports", "speedup over 1x base")
    # Fig. 9: local and global accesses, baseline and CARS, normalised to the baseline's total.
    fig, ax = plt.subplots(figsize=(max(6, 0.9 * len(wls) + 2), 3.6))
    for i, w in enumerate(wls):
        r = res["fig9"][w]
        tot = r.get("base", {}).get("accesses") or 1
        for j, v in enumerate(("base", "cars")):
            if v not in r:
                continue
            x = i + j * 0.4
            ax.bar(x, r[v]["global"] / tot, 0.38, color="tab:blue", label="global" if i == 0 and j == 0 else None)
            ax.bar(x, r[v]["local"] / tot, 0.38, bottom=r[v]["global"] / tot, color="tab:orange" if v == "base" else "tab:green",
                   label=("local (base)" if v == "base" else "local (CARS)") if i == 0 else None)
    ax.set_xticks([i + 0.2 for i in range(len(wls))])
    ax.set_xticklabels(wls, rotation=40, ha="right", fontsize=8)
    ax.set_ylabel("L1D accesses / baseline's")
    ax.set_title("Fig. 9: L1D accesses by kind (left: baseline, right: CARS)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "fig9_accesses.png"), dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    sys.exit(main())
