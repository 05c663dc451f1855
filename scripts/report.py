#!/usr/bin/python3
"""rfsim report DIR [--partial]: DIR/report.md, DIR/report.html and DIR/plots/*.png from DIR/compare.json.

The HTML is self-contained (the plots are embedded as data URIs) so that it can be mailed or
attached. Every file is written to a temporary name and renamed into place: a reader never
sees half a report. docs/compare.md.
"""

import argparse
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # rfsim_tools, beside this file

import matplotlib  # noqa: E402

matplotlib.use("Agg")  # no display: files only
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)

from rfsim_tools.common import BASE, InputError, geomean, number, read_json, role_order, write_atomic  # noqa: E402
from rfsim_tools.render import to_html, to_markdown  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PLOT_NAMES = ["speedup", "instructions", "l1d", "regfile", "stalls", "energy"]
DPI = 110
# The stacks' colours: tab10, then tab20b's darker shades. None is near white (luma under 0.72), so
# every part stands out from the white bar edges and the hatching.
PALETTE = (list(plt.cm.tab10.colors) + [plt.cm.tab20b.colors[i] for i in (0, 4, 8, 12, 16, 1, 5, 9, 13, 17)] +
           [plt.cm.tab20c.colors[i] for i in (0, 4, 8, 12, 1, 5, 9, 13)])


class ReportError(Exception):
    pass


# ---------------------------------------------------------------- input

def load(out):
    path = os.path.join(out, "compare.json")
    try:
        doc = read_json(path, f"rfsim compare -o {out} writes it")
    except InputError as e:
        raise ReportError(str(e))
    if not isinstance(doc, dict) or not str(doc.get("schema", "")).startswith("rfsim-compare/"):
        raise ReportError(f"{path}: not a compare.json (no \"schema\": \"rfsim-compare/...\")")
    runs = doc.get("runs")
    if not isinstance(runs, list) or not all(
            isinstance(r, dict) and all(isinstance(r.get(k), str) for k in ("config", "variant", "workload", "status"))
            for r in runs):
        raise ReportError(f"{path}: \"runs\" must be a list of runs with config, variant, workload and status")
    for r in runs:
        if not isinstance(r.get("metrics", {}), dict):
            raise ReportError(f"{path}: run {run_name(r)}: \"metrics\" is not an object")
    return doc


def run_name(r):
    return f"{r['config']}/{r['variant']}/{r['workload']}"


def ordered(declared, seen):
    """The order compare.json declares, then anything else the runs name."""
    out = [x for x in declared if x in seen]
    return out + [x for x in seen if x not in out]


class Data:
    def __init__(self, doc):
        self.doc = doc
        runs = doc["runs"]
        self.done = {(r["config"], r["variant"], r["workload"]): r for r in runs if r["status"] == "complete"}
        self.missing = [r for r in runs if r["status"] != "complete"]

        def names(key, field):
            declared = [x["name"] if isinstance(x, dict) else x for x in doc.get(key, []) or []]
            seen = []
            for r in runs:
                if r[field] not in seen:
                    seen.append(r[field])
            return ordered([d for d in declared if isinstance(d, str)], seen)

        self.configs = names("configs", "config")
        self.variants = names("variants", "variant")
        if BASE in self.variants:
            self.variants.remove(BASE)
            self.variants.insert(0, BASE)
        self.workloads = names("workloads", "workload")

    def categories(self):
        """(config, workload) pairs with at least one complete run, in order."""
        return [(c, w) for c in self.configs for w in self.workloads
                if any((c, v, w) in self.done for v in self.variants)]

    def label(self, c, w):
        return w if len(self.configs) == 1 else f"{w}\n{c}"

    def metric(self, c, v, w, key):
        r = self.done.get((c, v, w))
        return number(r.get("metrics", {}).get(key)) if r else None

    def relative(self, c, v, w, key):
        """A run's metric over the baseline's (None where either is missing or the base is 0)."""
        x, b = self.metric(c, v, w, key), self.metric(c, BASE, w, key)
        return x / b if x is not None and b else None

    def speedup(self, c, v, w):
        r = self.done.get((c, v, w))
        s = number(r.get("speedup")) if r else None
        if s and s > 0:
            return s
        b, x = self.metric(c, BASE, w, "cycles"), self.metric(c, v, w, "cycles")
        return b / x if b and x else None

    def energy_ratio(self, c, v, w):
        """A run's total energy over the baseline's."""
        return self.relative(c, v, w, "energy.total")

    def geomean(self, c, v, per_workload):
        """The geometric mean of per_workload(c, v, w) over the workloads that have it."""
        return geomean(per_workload(c, v, w) for w in self.workloads)

    def keys(self, prefix):
        seen = set()
        for r in self.done.values():
            seen.update(k for k in r.get("metrics", {}) if k.startswith(prefix))
        return sorted(seen)

    def nonzero(self, key):
        """Whether some complete run has a non-zero value for key."""
        return any(number(r.get("metrics", {}).get(key)) for r in self.done.values())

    def has_energy(self):
        return any(self.metric(*k, "energy.total") is not None for k in self.done)


# ---------------------------------------------------------------- plots

def grouped_positions(ncat, nbar):
    width = 0.8 / max(nbar, 1)
    return width, [[i - 0.4 + width * (j + 0.5) for i in range(ncat)] for j in range(nbar)]


def finish_axes(ax, labels, ylabel, title):
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels, rotation=30 if len(labels) > 6 else 0, ha="right" if len(labels) > 6 else "center")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(axis="y", alpha=0.3)
    ax.set_axisbelow(True)


def save(fig, path):
    tmp = path + ".tmp"
    fig.savefig(tmp, format="png", dpi=DPI, bbox_inches="tight")
    plt.close(fig)
    os.replace(tmp, path)


def fig_width(ncat, nbar):
    return min(max(8.0, 0.35 * ncat * max(nbar, 1) + 2.5), 30.0)


def legend_outside(ax, *args, **kwargs):
    """The plot's one legend, right of the axes and clear of the bars (bbox_inches="tight" widens the
    image to hold it)."""
    return ax.legend(*args, fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, **kwargs)


def plot_speedup(d, path):
    """Bars from 1.0 (up: faster, down: slower) on a scale around 1.0, each with its value."""
    variants = [v for v in d.variants if v != BASE] or [BASE]
    cats = d.categories()
    labels = [d.label(c, w) for c, w in cats] + [f"geomean\n{c}" if len(d.configs) > 1 else "geomean"
                                                  for c in d.configs]
    fig, ax = plt.subplots(figsize=(fig_width(len(labels), len(variants)), 5))
    width, xs = grouped_positions(len(labels), len(variants))
    colours = plt.cm.tab10.colors
    values = []
    for j, v in enumerate(variants):
        ys = [d.speedup(c, v, w) for c, w in cats] + [d.geomean(c, v, d.speedup) for c in d.configs]
        shown = [(x, y) for x, y in zip(xs[j], ys) if y]
        if not shown:
            continue
        bars = ax.bar([x for x, _ in shown], [y - 1.0 for _, y in shown], width, bottom=1.0, label=v,
                      color=colours[j % 10])
        for b, (_, y) in zip(bars, shown):
            ax.annotate(f"{y:.3f}", (b.get_x() + b.get_width() / 2, y), xytext=(0, 2 if y >= 1.0 else -2),
                        textcoords="offset points", ha="center", va="bottom" if y >= 1.0 else "top",
                        fontsize=7, rotation=90 if len(variants) * len(labels) > 24 else 0)
        values += [y for _, y in shown]
    lo, hi = min(values + [1.0]), max(values + [1.0])
    pad = max(0.01, 0.25 * (hi - lo))
    ax.set_ylim(lo - pad, hi + pad)  # around 1.0: 0.979 against 1.000 can be read
    ax.axhline(1.0, color="black", linewidth=0.8)
    if cats:
        ax.axvline(len(cats) - 0.5, color="grey", linestyle=":", linewidth=0.8)
    finish_axes(ax, labels, f"speedup over {BASE} (cycles)", "Speedup per workload, and the geometric mean")
    legend_outside(ax, title="variant")
    save(fig, path)


def stacked_plot(d, path, parts, ylabel, title, normalise):
    """Bars per (workload, variant), stacked by parts [(label, key)]. normalise: "share" (each bar
    sums to 1), "base" (relative to the sum of the baseline's parts) or a metric's key (relative to
    the baseline's value of it, e.g. energy.total)."""
    cats = d.categories()
    variants = d.variants
    fig, ax = plt.subplots(figsize=(fig_width(len(cats), len(variants)), 5.2))
    width, xs = grouped_positions(len(cats), len(variants))
    colours = PALETTE
    hatches = ["", "//", "..", "xx", "\\\\", "++", "oo", "--"]
    handles = {}
    for j, v in enumerate(variants):
        bottoms = [0.0] * len(cats)
        for k, (label, key) in enumerate(parts):
            ys = []
            for i, (c, w) in enumerate(cats):
                x = d.metric(c, v, w, key) or 0
                if normalise == "share":
                    total = sum(d.metric(c, v, w, kk) or 0 for _, kk in parts)
                elif normalise == "base":
                    total = sum(d.metric(c, BASE, w, kk) or 0 for _, kk in parts)
                else:
                    total = d.metric(c, BASE, w, normalise)
                ys.append(x / total if total else 0)
            bars = ax.bar(xs[j], ys, width, bottom=bottoms, color=colours[k % len(colours)],
                          hatch=hatches[j % len(hatches)], edgecolor="white", linewidth=0.4)
            handles.setdefault(label, bars)
            bottoms = [b + y for b, y in zip(bottoms, ys)]
    finish_axes(ax, [d.label(c, w) for c, w in cats], ylabel, title)
    labels = list(handles.keys())
    handles = list(handles.values())
    if len(variants) > 1:
        # The variants' hatching in the same legend, under the parts: two legends would overlap
        # once the parts are many.
        from matplotlib.patches import Patch
        handles.append(Patch(visible=False))
        labels.append("variant (bars left to right):")
        handles += [Patch(facecolor="white", hatch=hatches[j % len(hatches)], edgecolor="dimgrey")
                    for j in range(len(variants))]
        labels += variants
    legend_outside(ax, handles, labels)
    save(fig, path)


def plot_regfile(d, path):
    cats = d.categories()
    variants = d.variants
    metrics = [("rf_reads", "register-file reads"), ("rf_writes", "register-file writes"),
               ("bank_conflicts", "register bank conflicts")]
    fig, axes = plt.subplots(1, 3, figsize=(max(12.0, 3 * fig_width(len(cats), len(variants)) / 1.6), 4.8))
    width, xs = grouped_positions(len(cats), len(variants))
    colours = plt.cm.tab10.colors
    for ax, (key, title) in zip(axes, metrics):
        for j, v in enumerate(variants):
            ys = [d.relative(c, v, w, key) or 0 for c, w in cats]
            ax.bar(xs[j], ys, width, label=v, color=colours[j % 10])
        finish_axes(ax, [d.label(c, w) for c, w in cats], f"relative to {BASE}", title)
    legend_outside(axes[-1], title="variant")
    save(fig, path)


def make_plots(d, out):
    """Writes plots/*.png; returns [(name, caption)] of those written and notes for those not."""
    plots = os.path.join(out, "plots")
    os.makedirs(plots, exist_ok=True)
    made, notes = [], []
    if not d.categories():
        notes.append("No complete runs: no plots.")
        return made, notes
    p = lambda name: os.path.join(plots, name + ".png")  # noqa: E731

    plot_speedup(d, p("speedup"))
    made.append(("speedup", f"Speedup over {BASE} ({BASE} cycles / variant cycles) per workload, and the "
                            "geometric mean per variant."))

    roles = [k[len("instrs."):] for k in d.keys("instrs.")]
    roles.sort(key=role_order)
    if roles:
        parts, note = [(r, "instrs." + r) for r in roles], ""
    else:
        parts, note = [("all", "warp_instrs")], " These runs have no breakdown by role."
    stacked_plot(d, p("instructions"), parts, f"warp instructions relative to {BASE}",
                 "Dynamic warp instructions by role", "base")
    made.append(("instructions", "Dynamic warp instructions, stacked by what the back end added them for "
                                 f"(code, spill, fill, save, restore, ...), relative to {BASE}'s total." + note))

    kinds = [k for k in d.keys("l1d.") if k not in ("l1d.accesses", "l1d.local")]
    if kinds:
        stacked_plot(d, p("l1d"), [(k[4:], k) for k in kinds], f"L1D accesses relative to {BASE}",
                     "L1D accesses by kind", "base")
        made.append(("l1d", "L1D accesses by kind; local_load and local_store are register spills, fills "
                            f"and the call stack. Relative to {BASE}'s total."))
    else:
        notes.append("No L1D accesses by kind in these runs.")

    if any(d.metric(c, v, w, "rf_reads") is not None for c, w in d.categories() for v in d.variants):
        plot_regfile(d, p("regfile"))
        made.append(("regfile", f"Register-file reads, writes and bank conflicts, relative to {BASE}."))
    else:
        notes.append("No register-file statistics in these runs.")

    reasons = sorted(d.keys("stall."), key=lambda k: (k != "stall.issued", k))  # issued at the bottom
    if reasons:
        stacked_plot(d, p("stalls"), [(k[6:], k) for k in reasons], "share of scheduler cycles",
                     "Scheduler cycles by issue outcome (normalised)", "share")
        made.append(("stalls", "Each scheduler's cycles by outcome (issued, or the reason nothing issued), "
                               "summed over the schedulers and SMs, as shares of the total."))
    else:
        notes.append("No stall breakdown in these runs.")

    dynamic = [(k[len("energy.dynamic."):], k) for k in d.keys("energy.dynamic.") if d.nonzero(k)]
    static = [("static: " + k[len("energy.static."):], k) for k in d.keys("energy.static.") if d.nonzero(k)]
    if d.has_energy() and dynamic + static:
        stacked_plot(d, p("energy"), dynamic + static, f"energy relative to {BASE}'s total",
                     "Energy: dynamic by structure, then static", "energy.total")
        made.append(("energy", "Energy, stacked: the dynamic energy of each structure (events x energy per "
                               "event), then the static energy (static power x simulated time) of the SMs, "
                               f"the memory side, the board and any mechanism's structures; relative to "
                               f"{BASE}'s total. Structures with no energy in any run are left out."))
    else:
        notes.append("No energy statistics in these runs (stats.json has no `energy` group under "
                     "`workloads.<w>.total`): no energy plot.")
    written = {name for name, _ in made}
    for name in PLOT_NAMES:  # a plot left from an earlier report would contradict this one
        if name not in written and os.path.exists(p(name)):
            os.remove(p(name))
    return made, notes


# ---------------------------------------------------------------- documents

def fmt(x, digits=4):
    if x is None:
        return ""
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, int):
        return str(x)
    if isinstance(x, float):
        if x == int(x) and abs(x) < 1e15:
            return str(int(x))
        return f"{x:.{digits}g}"
    return str(x)


def fmt_uj(nj):
    """An energy in nJ as µJ: whole µJ from 1000 on, else four significant digits."""
    if nj is None:
        return ""
    x = nj / 1e3
    return f"{x:.0f}" if abs(x) >= 1000 else f"{x:.4g}"


def fmt_ratio(x):
    return "" if x is None else f"{x:.3f}"


def request_of(r):
    """What a run was asked, as rfsim recorded it in its stats.json (compare.json keeps a copy). An
    older compare.json has no record: its run's command line says as much."""
    req = r.get("request")
    if isinstance(req, dict):
        return req
    cmd = [str(x) for x in r.get("command", []) if isinstance(x, (str, int, float))]
    sets = [cmd[i + 1] for i, x in enumerate(cmd[:-1]) if x == "--set"]
    mech = next((cmd[i + 1] for i, x in enumerate(cmd[:-1]) if x == "--mech"), "")
    code = next((cmd[i + 1] for i, x in enumerate(cmd[:-1]) if x == "--code"), "")
    return {"size": "large" if "--large" in cmd else "small", "sets": sets, "mech": mech, "code": code}


def header(d):
    """The title, and a paragraph and a table of what the runs shown were asked: their input sizes,
    configurations and the variants' definitions. From the runs themselves, never from the command
    line of the compare that last wrote compare.json."""
    shown = [(k, request_of(r)) for k, r in d.done.items()]
    sizes = {}
    for (c, v, w), req in shown:
        if "argv" not in req:
            sizes.setdefault(req.get("size", "small"), set()).add(w)
    if len(sizes) == 1:
        inputs = f"{next(iter(sizes))} inputs"
    elif sizes:
        inputs = "small and large inputs"
    else:
        inputs = "applications"
    title = f"rfsim comparison: {inputs}, {', '.join(d.configs)}"
    common = None  # the --set every run shown has (compare's own --set)
    for _, req in shown:
        sets = [str(x) for x in req.get("sets", [])]
        common = sets if common is None else [x for x in common if x in sets]
    common = common or []
    defs = {}
    for (c, v, w), req in shown:
        mech = ", ".join(m for m in str(req.get("mech", "")).split(",") if m) or "none"
        keys = ", ".join(str(x) for x in req.get("sets", []) if x not in common) or "none"
        code = req.get("code") or ""
        row = (mech, keys + (f"; code {code}" if code else ""))
        defs.setdefault(v, [])
        if row not in defs[v]:
            defs[v].append(row)
    rows = [[v, " | ".join(r[0] for r in defs[v]), " | ".join(r[1] for r in defs[v])] for v in d.variants if v in defs]
    lines = []
    if len(sizes) > 1:
        lines.append("; ".join(f"{size} inputs: {', '.join(sorted(ws))}" for size, ws in sorted(sizes.items())))
    configs = {}
    for (c, v, w), req in shown:
        if req.get("config_file"):
            configs.setdefault(c, set()).add(os.path.relpath(req["config_file"], REPO)
                                             if str(req["config_file"]).startswith(REPO + os.sep) else req["config_file"])
    if configs:
        lines.append("Configurations: " + "; ".join(f"{c} ({', '.join(sorted(f))})" for c, f in configs.items()) + ".")
    if common:
        lines.append(f"Every run: --set {', '.join(common)}.")
    if any(len(x) > 1 for x in defs.values()):
        lines.append("A variant with two definitions (separated by |) has runs that were asked different things.")
    return title, lines, rows


def blocks(d, made, notes):
    """The report as a list of blocks, rendered to both Markdown and HTML."""
    doc = d.doc
    title, lines, rows = header(d)
    b = [("h1", title)]
    b.append(("p", f"{len(d.done)} of {len(doc['runs'])} runs complete; compare.json written "
                   f"{doc.get('created', '?')} by `{' '.join(map(str, doc.get('command', [])))}`. "
                   "The inputs, configurations and variants below are what the runs shown were asked "
                   "(their stats.json)."))
    for line in lines:
        b.append(("p", line))
    b.append(("table", ["variant", "mechanisms", "configuration keys"], rows, False))
    if d.missing:
        b.append(("h2", "Missing runs"))
        b.append(("p", "These runs are not complete and are left out of the tables and plots "
                       "(reported with --partial):"))
        b.append(("ul", [f"{run_name(r)}: {r['status']}" + (f" ({r['error']})" if r.get("error") else "")
                         for r in d.missing]))
    energy = d.has_energy()
    others = [v for v in d.variants if v != BASE]
    for c in d.configs:
        present = [w for w in d.workloads if any((c, v, w) in d.done for v in d.variants)]
        b.append(("h2", f"Speedup over {BASE}: {c}"))
        rows = [[w, fmt(d.metric(c, BASE, w, "cycles"))] + [fmt_ratio(d.speedup(c, v, w)) for v in others]
                for w in present]
        rows.append(["geometric mean", ""] + [fmt_ratio(d.geomean(c, v, d.speedup)) for v in others])
        b.append(("table", ["workload", f"{BASE} cycles"] + others, rows, True))
        if energy:
            b.append(("h2", f"Energy relative to {BASE}: {c}"))
            rows = [[w, fmt_uj(d.metric(c, BASE, w, "energy.total"))] +
                    [fmt_ratio(d.energy_ratio(c, v, w)) for v in others] for w in present]
            rows.append(["geometric mean", ""] + [fmt_ratio(d.geomean(c, v, d.energy_ratio)) for v in others])
            b.append(("table", ["workload", f"{BASE} energy (µJ)"] + others, rows, True))
    b.append(("h2", "Per run"))
    head = ["config", "variant", "workload", "cycles", "sim time (µs)", "IPC", "warp instrs",
            "spill+fill instrs", "RF reads", "RF writes", "bank conflicts", "L1D local", "host s"]
    if energy:
        head[-1:-1] = ["energy (µJ)", f"energy / {BASE}", "power (W)", "GOPS/W"]
    rows = []
    for (c, v, w) in sorted(d.done, key=lambda k: (d.configs.index(k[0]), d.workloads.index(k[2])
                                                    if k[2] in d.workloads else 0, d.variants.index(k[1]))):
        m = lambda key: d.metric(c, v, w, key)  # noqa: E731
        sf = [m("instrs.spill"), m("instrs.fill")]
        row = [c, v, w, fmt(m("cycles")), fmt(m("sim_time_us")), fmt(m("ipc")), fmt(m("warp_instrs")),
               fmt(sum(x for x in sf if x is not None)) if any(x is not None for x in sf) else "",
               fmt(m("rf_reads")), fmt(m("rf_writes")), fmt(m("bank_conflicts")), fmt(m("l1d.local")),
               fmt(m("host_seconds"))]
        if energy:
            row[-1:-1] = [fmt_uj(m("energy.total")), fmt_ratio(d.energy_ratio(c, v, w)),
                          fmt(m("energy.power")), fmt(m("energy.gops_per_watt"))]
        rows.append(row)
    b.append(("table", head, rows, True))
    b.append(("p", "Every statistic of every run is in compare.csv and compare.json; each run's own "
                   "results (stats.json, config.yaml) are under runs/<config>/<variant>/<workload>/."))
    b.append(("h2", "Plots"))
    for name, caption in made:
        b.append(("img", name, caption))
    for n in notes:
        b.append(("p", n))
    return b


def report(out, partial):
    doc = load(out)
    d = Data(doc)
    if d.missing and not partial:
        names = "; ".join(f"{run_name(r)} ({r['status']}" + (f": {r['error']}" if r.get("error") else "") + ")"
                          for r in d.missing)
        raise ReportError(f"{len(d.missing)} of {len(doc['runs'])} runs are incomplete or failed: {names}. "
                          f"Finish them with the same rfsim compare -o {out} (it resumes), or pass --partial "
                          "to report the complete runs and list the missing ones")
    made, notes = make_plots(d, out)
    bl = blocks(d, made, notes)
    write_atomic(os.path.join(out, "report.html"), to_html(bl, os.path.join(out, "plots")))
    write_atomic(os.path.join(out, "report.md"), to_markdown(bl))
    return d


def main(argv):
    ap = argparse.ArgumentParser(prog="rfsim report",
                                 description="Write DIR/report.md, DIR/report.html and DIR/plots/*.png from "
                                             "DIR/compare.json (written by rfsim compare).")
    ap.add_argument("dir", help="the folder rfsim compare -o wrote")
    ap.add_argument("--partial", action="store_true",
                    help="report the complete runs when some are incomplete or failed, and list the others")
    args = ap.parse_args(argv)
    try:
        d = report(args.dir, args.partial)
    except ReportError as e:
        print(f"rfsim report: error: {e}", file=sys.stderr)
        return 1
    extra = f" ({len(d.missing)} runs missing, listed in it)" if d.missing else ""
    print(f"report: {os.path.join(args.dir, 'report.html')}{extra}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
