#!/usr/bin/python3
"""The LTRF paper's figures from an experiments/ltrf.yaml folder (scripts/ltrf_repro.sh:
an `rfsim compare` output on the Maxwell-like configuration), each beside the paper's:

  Fig. 14  performance (BL #1's cycles / the variant's) of BL, RFC, LTRF
           (LTRF+), LTRFconf and Ideal on design points #6 and #7, and
           LTRF moving whole working sets; geometric means over the
           register-sensitive and -insensitive workloads (tags regsens,
           reginsens) and all;
  Fig. 15  the largest MRF latency (x #1's) at which each scheme loses at
           most 5 % against BL at 1x, per workload and on average;
  Fig. 16  prefetches without an MRF bank conflict at 8/16/32 registers per
           interval, without and with renumbering (the compiled code,
           `rfsim backend --intervals N --json OUT/fig16-intervals-N.json`);
  Fig. 17  LTRF and LTRFconf with 8, 16 and 32 registers per interval
           against the MRF's latency;
  Fig. 18  4 active warps against 8 on #6;
  Fig. 20  the largest tolerable MRF latency of BL and LTRF with 16, 32
           and 64 warps per SM;
  Table 4  interval length in dynamic instructions, real and optimal (the
           LTRF+ runs on #6);
  and the MRF accesses LTRF saves, the register file's energy and power
  (LTRF on #1 against BL on #1), from the runs' counters.

Writes OUT/ltrf_figures.md, fig14.png, fig15.png, fig17.png, fig20.png and
fig16-intervals-{8,16,32}.json;
prints the Markdown.

  scripts/ltrf_figures.py COMPARE_DIR [--rfsim PATH]
"""
import os
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # rfsim_tools, beside this file

from rfsim_tools.common import InputError, read_json  # noqa: E402
from rfsim_tools.figures import arguments, compare_json, geomean, launch_sum, passed_workload as load, sampling_note  # noqa: E402

PAPER14 = {"ltrf6": 1.32, "ltrf7": 1.28, "conf7": 1.34, "rfc": 0.86}
PAPER15 = {"rfc": 2.1, "ltrf": 5.3, "conf": 6.9}
PAPER16 = {8: (58, 95), 16: (23, 88), 32: (9.4, 24)}
PAPER18 = {"ltrf": 1.456, "conf": 1.274}
LATS = range(1, 9)


def mech_sum(r, key):
    return launch_sum(r, "ltrf", key)


def tags_of(rfsim):
    tags = {}
    try:
        out = subprocess.run([rfsim, "workloads"], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return tags
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 2:
            tags[f[0]] = set(f[1].split(","))
    return tags


def conflicts(rfsim, workloads, n, path):
    """{workload: (prefetches, conflict-free, renumbered prefetches, renumbered conflict-free)} of the
    workloads' baseline code, from `rfsim backend --intervals N --json PATH`; a workload the back end
    refused is absent."""
    path.unlink(missing_ok=True)  # never an earlier run's
    subprocess.run([rfsim, "backend", "-c", "maxwell", "-w", ",".join(workloads), "--intervals", str(n),
                    "--json", str(path)], stdout=subprocess.DEVNULL)
    try:
        doc = read_json(path, "written by rfsim backend --json")
    except InputError:
        return {}  # nothing compiled
    out = {}
    for m in doc["modules"]:
        if m["variant"] != "base":
            continue
        p, q = m["intervals"]["plain"], m["intervals"]["renumbered"]
        out[m["label"]] = (p["prefetches"], p["conflict_free"], q["prefetches"], q["conflict_free"])
    return out


def main():
    a = arguments(__doc__).parse_args()
    root = a.folder / "runs" / "maxwell"
    cmp = compare_json(a.folder)
    variants = [v["name"] for v in cmp["variants"]]
    workloads = cmp["workloads"]
    runs = {v: {w: load(root / v / w) for w in workloads} for v in variants}
    tags = tags_of(a.rfsim)
    sens = [w for w in workloads if "regsens" in tags.get(w, ())]
    insens = [w for w in workloads if "reginsens" in tags.get(w, ())]

    def cycles(v, w):
        r = runs.get(v, {}).get(w)
        return sum(l["cycles"] for l in r["launches"]) if r else None

    def perf(v, w, ref="bl1"):
        c0, c = cycles(ref, w), cycles(v, w)
        return c0 / c if c0 and c else None

    out = [f"# LTRF reproduction ({a.folder})", "",
           f"Configuration maxwell (Table 3), {len(workloads)} workloads: " + ", ".join(workloads) + ".",
           "Performance is BL #1's cycles over the variant's (the same work: prefetches are extra instructions, "
           "so IPC would flatter LTRF). A run whose CPU check failed counts as missing.", "",
           sampling_note(a.folder), ""]

    # Fig. 14.
    f14 = [v for v in ("bl6", "rfc6", "ltrf6", "conf6", "ltrfall6", "dirty6", "bl7", "rfc7", "ltrf7", "conf7", "ltrfall7",
                       "dirty7", "ideal")
           if v in variants]
    g14 = {}
    if f14:
        out += ["## Fig. 14: performance over BL with 256 KB + 16 KB (#1)", "",
                "| workload | class | " + " | ".join(f14) + " |", "|---|---|" + "---|" * len(f14)]
        for w in workloads:
            cls = "sens" if w in sens else "insens" if w in insens else "-"
            out.append(f"| {w} | {cls} | " + " | ".join(
                f"{perf(v, w):.3f}" if perf(v, w) else "-" for v in f14) + " |")
        for label, ws in (("all", workloads), ("sensitive", sens), ("insensitive", insens)):
            if not ws:
                continue
            g = {v: geomean([perf(v, w) for w in ws]) for v in f14}
            if label == "all":
                g14 = g
            out.append(f"| **geomean {label}** | | " + " | ".join(f"**{g[v]:.3f}**" for v in f14) + " |")
        out += ["", "Paper (Fig. 14, averages): #6 LTRF 1.32 (about Ideal); #7 LTRF 1.28, LTRFconf 1.34; "
                "LTRFconf over LTRF +3.8 % (#6), +4.8 % (#7); RFC schemes 0.86 with an 8x register file (intro).", ""]

    # Fig. 15.
    schemes = [s for s in ("bl", "rfc", "ltrf", "conf", "strand") if f"{s}-L1" in variants]
    tol = {}
    if schemes:
        out += ["## Fig. 15: largest MRF latency (x #1's) losing at most 5 % against BL at 1x", "",
                "| workload | " + " | ".join(schemes) + " |", "|---|" + "---|" * len(schemes)]
        cols = {s: [] for s in schemes}
        for w in workloads:
            row = []
            for s in schemes:
                best = 0
                for lat in LATS:
                    p = perf(f"{s}-L{lat}", w)
                    if p and p >= 0.95:
                        best = lat
                cols[s].append(best)
                row.append(str(best) if best else "<1")
            out.append(f"| {w} | " + " | ".join(row) + " |")
        tol = {s: sum(v) / len(v) for s, v in cols.items() if v}
        out.append("| **mean** | " + " | ".join(f"**{tol[s]:.2f}**" for s in schemes) + " |")
        out += ["", "Paper (Fig. 15, averages): RFC 2.1x, LTRF 5.3x, LTRFconf 6.9x; Fig. 19: LTRF with strands 3x "
                "(BL is not drawn: it has no cache to hide latency). 8 is the largest latency swept here.", ""]
        out += ["Performance against BL at 1x, geometric mean over the workloads:", "",
                "| latency | " + " | ".join(schemes) + " |", "|---|" + "---|" * len(schemes)]
        for lat in LATS:
            if not any(f"{s}-L{lat}" in variants for s in schemes):
                continue
            out.append(f"| {lat}x | " + " | ".join(
                f"{geomean([perf(f'{s}-L{lat}', w) for w in workloads]):.3f}" for s in schemes) + " |")
        out.append("")

    # Fig. 16 (static).
    out += ["## Fig. 16: prefetches without an MRF bank conflict (16 banks), without / with renumbering", "",
            "| registers per interval | prefetches | ours LTRF | ours LTRFconf | paper LTRF | paper LTRFconf |",
            "|---|---|---|---|---|---|"]
    for n in (8, 16, 32):
        tot = [0, 0, 0, 0]
        for c in conflicts(a.rfsim, workloads, n, a.folder / f"fig16-intervals-{n}.json").values():
            tot = [x + y for x, y in zip(tot, c)]
        if tot[0]:
            out.append(f"| {n} | {tot[0]} | {100 * tot[1] / tot[0]:.1f} % | {100 * tot[3] / max(1, tot[2]):.1f} % | "
                       f"{PAPER16[n][0]} % | {PAPER16[n][1]} % |")
    out.append("")

    # Fig. 17: performance against BL at 1x by registers per interval (N) and MRF latency.
    n_of = {8: "-n8", 16: "", 32: "-n32"}
    curves17 = {}
    f17 = {(s, n): [lat for lat in LATS if f"{s}{n_of[n]}-L{lat}" in variants]
           for s in ("ltrf", "conf") for n in (8, 16, 32)}
    if any(f17[(s, n)] for s in ("ltrf", "conf") for n in (8, 32)):
        lats = sorted({lat for v in f17.values() for lat in v})
        out += ["## Fig. 17: performance against BL at 1x by registers per interval, MRF (#1) latency 1..8x", "",
                "| scheme | N | " + " | ".join(f"{lat}x" for lat in lats) + " |", "|---|---|" + "---|" * len(lats)]
        for s in ("ltrf", "conf"):
            for n in (8, 16, 32):
                g = {lat: geomean([perf(f"{s}{n_of[n]}-L{lat}", w) for w in workloads]) for lat in f17[(s, n)]}
                curves17[(s, n)] = g
                out.append(f"| {'LTRF' if s == 'ltrf' else 'LTRFconf'} | {n} | " + " | ".join(
                    f"{g[lat]:.3f}" if lat in g and g[lat] else "-" for lat in lats) + " |")
        out += ["", "Paper (Fig. 17, the curves are images): N = 8 degrades at high latency and LTRF is about "
                "LTRFconf there; a larger N does not always help LTRF but helps LTRFconf.", ""]

    # Fig. 20: the largest MRF latency losing at most 5 % against BL at 1x with as many warps.
    def tolerance(s, suffix, ref, w):
        best = 0
        for lat in LATS:
            p = perf(f"{s}{suffix}-L{lat}", w, ref=ref)
            if p and p >= 0.95:
                best = lat
        return best
    warps20 = [wp for wp in (16, 32) if f"bl-w{wp}-L1" in variants] + ([64] if "bl-L1" in variants else [])
    tol20 = {}
    if len(warps20) > 1:
        out += ["## Fig. 20: largest MRF latency (x #1's) losing at most 5 % against BL at 1x, by warps per SM", "",
                "| warps per SM | BL | LTRF | BL, LTRF against their own 1x | LTRF performance over BL at the top latency |",
                "|---|---|---|---|---|"]
        for wp in warps20:
            suffix = "" if wp == 64 else f"-w{wp}"
            ref = f"bl{suffix}-L1"
            t = {}
            for s in ("bl", "ltrf"):
                vals = []
                for w in workloads:
                    vals.append(tolerance(s, suffix, ref, w))
                t[s] = sum(vals) / len(vals)
            tol20[wp] = t
            own = {s: sum(tolerance(s, suffix, f"{s}{suffix}-L1", w) for w in workloads) / len(workloads)
                   for s in ("bl", "ltrf")}
            top = max(lat for lat in LATS if f"bl{suffix}-L{lat}" in variants)
            r8 = geomean([perf(f"ltrf{suffix}-L{top}", w, ref=f"bl{suffix}-L{top}") for w in workloads])
            out.append(f"| {wp} | {t['bl']:.2f} | {t['ltrf']:.2f} | {own['bl']:.2f}, {own['ltrf']:.2f} | " +
                       (f"{r8:.3f} ({top}x) |" if r8 else "- |"))
        out += ["", "Paper (Fig. 20, an image): LTRF's advantage over BL is larger with fewer warps per SM; 64 and "
                "128 warps give about the same. The SM here holds at most 64 warps.", ""]

    # Fig. 18.
    if "ltrf6-aw4" in variants:
        out += ["## Fig. 18: 8 active warps over 4 (#6)", "", "| workload | LTRF | LTRFconf |", "|---|---|---|"]
        g = {"ltrf": [], "conf": []}
        for w in workloads:
            r = [perf(f"{s}6", w, ref=f"{s}6-aw4") for s in ("ltrf", "conf")]
            g["ltrf"].append(r[0])
            g["conf"].append(r[1])
            out.append(f"| {w} | " + " | ".join(f"{x:.3f}" if x else "-" for x in r) + " |")
        out.append(f"| **geomean** | **{geomean(g['ltrf']):.3f}** ({PAPER18['ltrf']}) | "
                   f"**{geomean(g['conf']):.3f}** ({PAPER18['conf']}) |")
        out.append("")

    # Table 4 and the traffic.
    if "ltrf6" in variants:
        out += ["## Table 4: interval length (dynamic warp instructions per interval entered), LTRF+ on #6", "",
                "| workload | real | optimal | real / optimal | MRF accesses BL #6 / LTRF #6 | conflict-free fetches |",
                "|---|---|---|---|---|---|"]
        reals, opts = [], []
        for w in workloads:
            r, b = runs["ltrf6"].get(w), runs.get("bl6", {}).get(w)
            if not r:
                continue
            dyn = mech_sum(r, "dyn_instrs")
            entries = mech_sum(r, "prefetch_instrs") + mech_sum(r, "path_refetches")
            opt = mech_sum(r, "optimal_runs")
            real = dyn / entries if entries else float("nan")
            optimal = dyn / opt if opt else float("nan")
            reals.append(real)
            opts.append(optimal)
            acc = mech_sum(r, "mrf_reads") + mech_sum(r, "mrf_writes")
            bacc = mech_sum(b, "mrf_reads") + mech_sum(b, "mrf_writes") if b else 0
            sets = mech_sum(r, "fetch_sets")
            out.append(f"| {w} | {real:.1f} | {optimal:.1f} | {real / optimal:.2f} | "
                       f"{bacc / acc if acc and bacc else float('nan'):.2f} | "
                       f"{100 * mech_sum(r, 'fetch_sets_conflict_free') / sets if sets else float('nan'):.1f} % |")
        if reals:
            mr, mo = sum(reals) / len(reals), sum(opts) / len(opts)
            out.append(f"| **mean** | **{mr:.1f}** | **{mo:.1f}** | **{mr / mo:.2f}** | | |")
        out += ["", "Paper (Table 4, 35 workloads): real 31.2, optimal 34.7 (89 %); MRF accesses cut 4x-6x.", ""]

    # Register-file energy and power, LTRF against BL on #1 (same technology).
    if "ltrf-L1" in variants and "bl1" in variants:
        e = dict(mrf_read=48.7, mrf_write=68.4, rfc_read=6.1, rfc_write=8.6, xbar=31.3, wcb=0.9)
        out += ["## Register-file energy and power: LTRF+ on #1 over BL on #1", "",
                "| workload | energy ratio | power ratio |", "|---|---|---|"]
        ratios = []
        for w in workloads:
            b, r = runs["bl1"].get(w), runs["ltrf-L1"].get(w)
            if not b or not r:
                continue
            eb = mech_sum(b, "mrf_reads") * e["mrf_read"] + mech_sum(b, "mrf_writes") * e["mrf_write"]
            er = (mech_sum(r, "mrf_reads") * e["mrf_read"] + mech_sum(r, "mrf_writes") * e["mrf_write"] +
                  mech_sum(r, "rfc_reads") * e["rfc_read"] + mech_sum(r, "rfc_writes") * e["rfc_write"] +
                  mech_sum(r, "xbar_transfers") * e["xbar"] + mech_sum(r, "wcb_lookups") * e["wcb"])
            if eb:
                pr = (er / cycles("ltrf-L1", w)) / (eb / cycles("bl1", w))
                ratios.append((er / eb, pr))
                out.append(f"| {w} | {er / eb:.3f} | {pr:.3f} |")
        if ratios:
            out.append(f"| **geomean** | **{geomean([x for x, _ in ratios]):.3f}** | "
                       f"**{geomean([y for _, y in ratios]):.3f}** |")
        out += ["", "Paper: register-file power -23 % (0.77) with LTRF on the same MRF. Per-access energies: "
                "mechanisms.ltrf's (docs/ltrf.md).", ""]

    text = "\n".join(out)
    (a.folder / "ltrf_figures.md").write_text(text + "\n")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        if g14:
            fig, ax = plt.subplots(figsize=(8, 3.5))
            names = list(g14)
            ax.bar(names, [g14[n] for n in names], color="#4a7ab5")
            ax.axhline(1.0, color="k", lw=0.8)
            ax.set_ylabel("performance over BL #1")
            ax.set_title("Fig. 14 (geometric mean over all workloads)")
            plt.xticks(rotation=30)
            fig.tight_layout()
            fig.savefig(a.folder / "fig14.png", dpi=120)
        if schemes:
            fig, ax = plt.subplots(figsize=(6, 3.5))
            for s in schemes:
                lats = [l for l in LATS if f"{s}-L{l}" in variants]
            ax.plot(lats, [geomean([perf(f"{s}-L{l}", w) for w in workloads]) for l in lats], marker="o", label=s)
            ax.axhline(0.95, color="k", lw=0.8, ls="--")
            ax.set_xlabel("MRF latency (x #1)")
            ax.set_ylabel("performance over BL at 1x")
            ax.set_title("Fig. 15 (geometric mean)")
            ax.legend()
            fig.tight_layout()
            fig.savefig(a.folder / "fig15.png", dpi=120)
        if any(curves17.get((s, n)) for s in ("ltrf", "conf") for n in (8, 32)):
            fig, ax = plt.subplots(figsize=(6, 3.5))
            for (s, n), g in curves17.items():
                if g:
                    ax.plot(list(g), list(g.values()), marker="o", ls="-" if s == "ltrf" else "--",
                            label=f"{'LTRF' if s == 'ltrf' else 'LTRFconf'} N={n}")
            ax.set_xlabel("MRF latency (x #1)")
            ax.set_ylabel("performance over BL at 1x")
            ax.set_title("Fig. 17 (geometric mean)")
            ax.legend(fontsize=7)
            fig.tight_layout()
            fig.savefig(a.folder / "fig17.png", dpi=120)
        if tol20:
            fig, ax = plt.subplots(figsize=(5, 3.5))
            xs = list(tol20)
            ax.bar([i - 0.2 for i in range(len(xs))], [tol20[x]["bl"] for x in xs], 0.4, label="BL")
            ax.bar([i + 0.2 for i in range(len(xs))], [tol20[x]["ltrf"] for x in xs], 0.4, label="LTRF")
            ax.set_xticks(range(len(xs)), [str(x) for x in xs])
            ax.set_xlabel("warps per SM")
            ax.set_ylabel("largest latency losing <= 5 %")
            ax.set_title("Fig. 20 (mean)")
            ax.legend()
            fig.tight_layout()
            fig.savefig(a.folder / "fig20.png", dpi=120)
    except ImportError:
        pass
    print(text)


if __name__ == "__main__":
    main()
