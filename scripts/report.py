#!/usr/bin/python3
"""rfsim report DIR [--partial]: DIR/report.md, DIR/report.html and DIR/plots/*.png from DIR/compare.json.

The HTML is self-contained (the plots are embedded as data URIs) so that it can be mailed or
attached. Every file is written to a temporary name and renamed into place: a reader never
sees half a report. docs/compare.md.
"""

import argparse
import base64
import html
import json
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")  # no display: files only
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)

BASE = "base"
ROLE_NAMES = ["code", "spill", "fill", "save", "restore", "stack-adjust", "arg-move", "arg-stack"]
ENERGY_UNITS = {"fj": 1e-3, "pj": 1.0, "nj": 1e3, "uj": 1e6, "µj": 1e6, "mj": 1e9, "j": 1e12}
# Energies that are sums of the structures' energies, not structures of their own.
ENERGY_AGGREGATES = {"total", "dynamic", "static", "leakage", "sum"}
PLOT_NAMES = ["speedup", "instructions", "l1d", "regfile", "stalls", "energy"]
DPI = 110


class ReportError(Exception):
    pass


# ---------------------------------------------------------------- input

def load(out):
    path = os.path.join(out, "compare.json")
    try:
        with open(path) as f:
            doc = json.load(f)
    except FileNotFoundError:
        raise ReportError(f"{path}: missing (rfsim compare -o {out} writes it)")
    except (OSError, ValueError) as e:
        raise ReportError(f"{path}: not valid JSON: {e}")
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
        self.units = doc.get("units") if isinstance(doc.get("units"), dict) else {}

    def categories(self):
        """(config, workload) pairs with at least one complete run, in order."""
        return [(c, w) for c in self.configs for w in self.workloads
                if any((c, v, w) in self.done for v in self.variants)]

    def label(self, c, w):
        return w if len(self.configs) == 1 else f"{w}\n{c}"

    def metric(self, c, v, w, key):
        r = self.done.get((c, v, w))
        x = r.get("metrics", {}).get(key) if r else None
        return x if isinstance(x, (int, float)) and not isinstance(x, bool) else None

    def speedup(self, c, v, w):
        r = self.done.get((c, v, w))
        s = r.get("speedup") if r else None
        if isinstance(s, (int, float)) and s > 0:
            return s
        b, x = self.metric(c, BASE, w, "cycles"), self.metric(c, v, w, "cycles")
        return b / x if b and x else None

    def geomean(self, c, v):
        sp = [self.speedup(c, v, w) for w in self.workloads]
        sp = [s for s in sp if s]
        return (math.exp(sum(math.log(s) for s in sp) / len(sp)), len(sp)) if sp else (None, 0)

    def keys(self, prefix):
        seen = set()
        for r in self.done.values():
            seen.update(k for k in r.get("metrics", {}) if k.startswith(prefix))
        return sorted(seen)

    def energy(self, c, v, w):
        """{structure: pJ} of one run, from whatever energy statistics it has."""
        r = self.done.get((c, v, w))
        if not r:
            return {}
        totals, sums = {}, {}
        for key, x in r.get("metrics", {}).items():
            if not key.startswith("energy.") or isinstance(x, bool) or not isinstance(x, (int, float)):
                continue
            unit = str(self.units.get(key, "")).lower()
            if self.units and unit not in ENERGY_UNITS:
                continue  # a count or a power beside the energies
            x = x * ENERGY_UNITS.get(unit, 1.0)
            parts = key.split(".")[1:]
            if len(parts) == 1:
                if parts[0] not in ENERGY_AGGREGATES and not parts[0].startswith("total"):
                    sums[parts[0]] = sums.get(parts[0], 0.0) + x
            elif parts[-1] == "total" and len(parts) == 2:
                totals[parts[0]] = x
            else:
                sums[parts[0]] = sums.get(parts[0], 0.0) + x
        sums.update(totals)
        return sums


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


def plot_speedup(d, path):
    variants = [v for v in d.variants if v != BASE] or [BASE]
    cats = d.categories()
    labels = [d.label(c, w) for c, w in cats] + [f"geomean\n{c}" if len(d.configs) > 1 else "geomean"
                                                  for c in d.configs]
    fig, ax = plt.subplots(figsize=(fig_width(len(labels), len(variants)), 5))
    width, xs = grouped_positions(len(labels), len(variants))
    colours = plt.cm.tab10.colors
    for j, v in enumerate(variants):
        ys = [d.speedup(c, v, w) or 0 for c, w in cats] + [d.geomean(c, v)[0] or 0 for c in d.configs]
        bars = ax.bar(xs[j], ys, width, label=v, color=colours[j % 10])
        for b, y in list(zip(bars, ys))[len(cats):]:
            ax.annotate(f"{y:.3f}", (b.get_x() + b.get_width() / 2, y), ha="center", va="bottom", fontsize=8)
    ax.axhline(1.0, color="black", linewidth=0.8)
    if cats:
        ax.axvline(len(cats) - 0.5, color="grey", linestyle=":", linewidth=0.8)
    finish_axes(ax, labels, f"speedup over {BASE} (cycles)", "Speedup per workload, and the geometric mean")
    ax.legend(title="variant", fontsize=8)
    save(fig, path)


def stacked_plot(d, path, parts, ylabel, title, normalise):
    """Bars per (workload, variant), stacked by parts [(label, key)]; normalise: 'base' or 'share'."""
    cats = d.categories()
    variants = d.variants
    fig, ax = plt.subplots(figsize=(fig_width(len(cats), len(variants)), 5.2))
    width, xs = grouped_positions(len(cats), len(variants))
    colours = plt.cm.tab20.colors
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
                else:
                    total = sum(d.metric(c, BASE, w, kk) or 0 for _, kk in parts)
                ys.append(x / total if total else 0)
            bars = ax.bar(xs[j], ys, width, bottom=bottoms, color=colours[k % 20],
                          hatch=hatches[j % len(hatches)], edgecolor="white", linewidth=0.4)
            handles.setdefault(label, bars)
            bottoms = [b + y for b, y in zip(bottoms, ys)]
    finish_axes(ax, [d.label(c, w) for c, w in cats], ylabel, title)
    legend = ax.legend(handles.values(), handles.keys(), fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    ax.add_artist(legend)
    if len(variants) > 1:
        from matplotlib.patches import Patch
        ax.legend([Patch(facecolor="white", hatch=hatches[j % len(hatches)], edgecolor="dimgrey")
                   for j in range(len(variants))], variants, title="variant (bars left to right)",
                  fontsize=8, loc="lower left", bbox_to_anchor=(1.0, 0.0))
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
            ys = []
            for c, w in cats:
                x, b = d.metric(c, v, w, key), d.metric(c, BASE, w, key)
                ys.append(x / b if x is not None and b else 0)
            ax.bar(xs[j], ys, width, label=v, color=colours[j % 10])
        finish_axes(ax, [d.label(c, w) for c, w in cats], f"relative to {BASE}", title)
    axes[0].legend(title="variant", fontsize=8)
    save(fig, path)


def plot_energy(d, path):
    cats = d.categories()
    structures = []
    for c, w in cats:
        for v in d.variants:
            structures += [s for s in d.energy(c, v, w) if s not in structures]
    if not structures:
        return False
    variants = d.variants
    fig, ax = plt.subplots(figsize=(fig_width(len(cats), len(variants)), 5.2))
    width, xs = grouped_positions(len(cats), len(variants))
    colours = plt.cm.tab20.colors
    hatches = ["", "//", "..", "xx", "\\\\", "++", "oo", "--"]
    handles = {}
    for j, v in enumerate(variants):
        bottoms = [0.0] * len(cats)
        for k, s in enumerate(structures):
            ys = []
            for c, w in cats:
                base_total = sum(d.energy(c, BASE, w).values())
                ys.append(d.energy(c, v, w).get(s, 0.0) / base_total if base_total else 0)
            bars = ax.bar(xs[j], ys, width, bottom=bottoms, color=colours[k % 20],
                          hatch=hatches[j % len(hatches)], edgecolor="white", linewidth=0.4)
            handles.setdefault(s, bars)
            bottoms = [b + y for b, y in zip(bottoms, ys)]
    finish_axes(ax, [d.label(c, w) for c, w in cats], f"energy relative to {BASE}",
                "Energy by structure (bars: " + ", ".join(variants) + ")")
    ax.legend(handles.values(), handles.keys(), fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    save(fig, path)
    return True


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
    roles.sort(key=lambda r: (ROLE_NAMES.index(r) if r in ROLE_NAMES else 99, r))
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

    if plot_energy(d, p("energy")):
        made.append(("energy", f"Energy by structure, relative to {BASE}'s total."))
    else:
        notes.append("No energy statistics in these runs (the energy model writes them under "
                     "total.energy in stats.json): no energy plot.")
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


def fmt_speedup(x):
    return "" if x is None else f"{x:.3f}"


def blocks(d, made, notes):
    """The report as a list of blocks, rendered to both Markdown and HTML."""
    doc = d.doc
    b = [("h1", "rfsim comparison")]
    variants = {v["name"]: v for v in doc.get("variants", []) if isinstance(v, dict) and "name" in v}
    b.append(("p", f"Created {doc.get('created', '?')} by `{' '.join(map(str, doc.get('command', [])))}`; "
                   f"{'large' if doc.get('large') else 'small'} inputs; "
                   f"{len(d.done)} of {len(doc['runs'])} runs complete."))
    b.append(("table", ["variant", "mechanisms", "overrides"],
              [[v, ", ".join(variants.get(v, {}).get("mechanisms", [])) or "none",
                ", ".join(variants.get(v, {}).get("overrides", [])) or "none"] for v in d.variants], False))
    if d.missing:
        b.append(("h2", "Missing runs"))
        b.append(("p", "These runs are not complete and are left out of the tables and plots "
                       "(reported with --partial):"))
        b.append(("ul", [f"{run_name(r)}: {r['status']}" + (f" ({r['error']})" if r.get("error") else "")
                         for r in d.missing]))
    for c in d.configs:
        b.append(("h2", f"Speedup over {BASE}: {c}"))
        others = [v for v in d.variants if v != BASE]
        rows = [[w] + [fmt(d.metric(c, BASE, w, "cycles"))] + [fmt_speedup(d.speedup(c, v, w)) for v in others]
                for w in d.workloads if any((c, v, w) in d.done for v in d.variants)]
        rows.append(["geometric mean", ""] + [fmt_speedup(d.geomean(c, v)[0]) for v in others])
        b.append(("table", ["workload", f"{BASE} cycles"] + others, rows, True))
    b.append(("h2", "Per run"))
    energy_cols = any(d.energy(*k) for k in d.done)
    head = ["config", "variant", "workload", "cycles", "sim time (µs)", "IPC", "warp instrs",
            "spill+fill instrs", "RF reads", "RF writes", "bank conflicts", "L1D local", "host s"]
    if energy_cols:
        head.insert(-1, "energy (nJ)")
    rows = []
    for (c, v, w) in sorted(d.done, key=lambda k: (d.configs.index(k[0]), d.workloads.index(k[2])
                                                    if k[2] in d.workloads else 0, d.variants.index(k[1]))):
        m = lambda key: d.metric(c, v, w, key)  # noqa: E731
        sf = [m("instrs.spill"), m("instrs.fill")]
        row = [c, v, w, fmt(m("cycles")), fmt(m("sim_time_us")), fmt(m("ipc")), fmt(m("warp_instrs")),
               fmt(sum(x for x in sf if x is not None)) if any(x is not None for x in sf) else "",
               fmt(m("rf_reads")), fmt(m("rf_writes")), fmt(m("bank_conflicts")), fmt(m("l1d.local")),
               fmt(m("host_seconds"))]
        if energy_cols:
            e = d.energy(c, v, w)
            row.insert(-1, fmt(sum(e.values()) / 1e3) if e else "")
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


def md_escape(s):
    return str(s).replace("|", "\\|").replace("\n", " ")


def to_markdown(bl):
    out = []
    for blk in bl:
        kind = blk[0]
        if kind == "h1":
            out.append(f"# {blk[1]}\n")
        elif kind == "h2":
            out.append(f"## {blk[1]}\n")
        elif kind == "p":
            out.append(f"{blk[1]}\n")
        elif kind == "ul":
            out.append("\n".join(f"- {i}" for i in blk[1]) + "\n")
        elif kind == "table":
            head, rows = blk[1], blk[2]
            lines = ["| " + " | ".join(md_escape(h) for h in head) + " |",
                     "|" + "|".join("---" for _ in head) + "|"]
            lines += ["| " + " | ".join(md_escape(x) for x in r) + " |" for r in rows]
            out.append("\n".join(lines) + "\n")
        elif kind == "img":
            out.append(f"![{blk[1]}](plots/{blk[1]}.png)\n\n{blk[2]}\n")
    return "\n".join(out)


HTML_HEAD = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>rfsim comparison</title>
<style>
body { font-family: sans-serif; max-width: 1200px; margin: 2em auto; padding: 0 1em; color: #222; }
table { border-collapse: collapse; margin: 1em 0; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: right; }
th { background: #f0f0f0; }
th.sortable { cursor: pointer; }
td:nth-child(-n+3), th:nth-child(-n+3) { text-align: left; }
img { max-width: 100%; }
figure { margin: 1.5em 0; }
code { background: #f4f4f4; padding: 0 0.2em; }
</style>
<script>
// Click a column heading to sort the table by it (numbers numerically); again to reverse.
function sortBy(th) {
  const table = th.closest("table"), body = table.tBodies[0];
  const col = Array.from(th.parentNode.children).indexOf(th);
  const dir = th.dataset.dir === "asc" ? -1 : 1;
  th.dataset.dir = dir === 1 ? "asc" : "desc";
  const key = r => { const t = r.children[col].textContent; const n = parseFloat(t); return isNaN(n) ? t : n; };
  Array.from(body.rows).sort((a, b) => {
    const x = key(a), y = key(b);
    return dir * (typeof x === typeof y ? (x < y ? -1 : x > y ? 1 : 0) : (typeof x === "number" ? -1 : 1));
  }).forEach(r => body.appendChild(r));
}
</script>
</head><body>
"""


def inline_code(text):
    """`code` spans of the Markdown text as <code> (the only markup the blocks use)."""
    parts = html.escape(text).split("`")
    return "".join(f"<code>{p}</code>" if i % 2 else p for i, p in enumerate(parts))


def to_html(bl, plots_dir):
    out = [HTML_HEAD]
    for blk in bl:
        kind = blk[0]
        if kind in ("h1", "h2"):
            out.append(f"<{kind}>{html.escape(blk[1])}</{kind}>")
        elif kind == "p":
            out.append(f"<p>{inline_code(blk[1])}</p>")
        elif kind == "ul":
            out.append("<ul>" + "".join(f"<li>{html.escape(i)}</li>" for i in blk[1]) + "</ul>")
        elif kind == "table":
            head, rows, sortable = blk[1], blk[2], blk[3]
            ths = "".join(f'<th class="sortable" onclick="sortBy(this)">{html.escape(h)}</th>' if sortable
                          else f"<th>{html.escape(h)}</th>" for h in head)
            trs = "".join("<tr>" + "".join(f"<td>{html.escape(str(x))}</td>" for x in r) + "</tr>" for r in rows)
            out.append(f"<table><thead><tr>{ths}</tr></thead><tbody>{trs}</tbody></table>")
        elif kind == "img":
            with open(os.path.join(plots_dir, blk[1] + ".png"), "rb") as f:
                data = base64.b64encode(f.read()).decode("ascii")
            out.append(f'<figure><img alt="{html.escape(blk[1])}" src="data:image/png;base64,{data}">'
                       f"<figcaption>{html.escape(blk[2])}</figcaption></figure>")
    out.append("</body></html>\n")
    return "\n".join(out)


def write_atomic(path, text):
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


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
