#!/usr/bin/env python3
"""Tables from rfsim-hw's results (docs/hardware.md): the workloads' CPU checks on the real GPU,
and the speedup of the fully inlined code over the separately compiled code (the CARS paper's
LTO baseline, Fig. 16) on the GPU beside the model's.

Usage: scripts/hw_figures.py DIR [--model LABEL=FIGURES_JSON]...

DIR holds rfsim-hw --json files named as in docs/hardware.md:
  all-small.json, all-large.json               every workload, all SMs
  calls-<size>-<N>sm.json, ...-inlined.json     the calls suite on N SMs, separately compiled / inlined
FIGURES_JSON is a cars_figures.py figures.json (OUT/figures/figures.json of scripts/cars_repro.sh);
its Fig. 16 "lto" column is the model's inlined speedup, printed as a column named LABEL.
"""
import glob
import os
import re
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # rfsim_tools, beside this file

from rfsim_tools.common import geomean, read_json  # noqa: E402


def load(path):
    return {r["workload"]: r for r in read_json(path)} if os.path.exists(path) else {}


def regs(r):
    k = r.get("kernels") or {}
    return max((v.get("regs", 0) for v in k.values()), default=None)


def local(r):
    k = r.get("kernels") or {}
    return max((v.get("local_bytes", 0) for v in k.values()), default=None)


def f(x, nd=3):
    return "" if x is None else f"{x:.{nd}f}"


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    d = argv[0]
    models = []
    rest = argv[1:]
    while rest:
        if rest[0] != "--model" or len(rest) < 2 or "=" not in rest[1]:
            print(f"hw_figures.py: error: unexpected '{rest[0]}' (see --help)", file=sys.stderr)
            return 2
        label, path = rest[1].split("=", 1)
        fig = read_json(path)["fig16"]
        models.append((label, {w: v.get("lto") for w, v in fig.items() if w != "geomean"}))
        rest = rest[2:]

    small, large = load(os.path.join(d, "all-small.json")), load(os.path.join(d, "all-large.json"))
    first = next(iter(small.values()), None) or next(iter(large.values()), None)
    if first:
        print(f"GPU: {first.get('device', '?')}\n")
    print("| workload | small | large | kernel ms small | kernel ms large | registers (JIT) | local B per thread |")
    print("|---|---|---|--:|--:|--:|--:|")
    names = sorted(set(small) | set(large))
    failed = []
    for w in names:
        s, l = small.get(w, {}), large.get(w, {})
        cs = "pass" if s.get("passed") else ("**fail**" if s else "")
        cl = "pass" if l.get("passed") else ("**fail**" if l else "")
        if s and not s.get("passed"):
            failed.append(f"{w} small: {s.get('error') or s.get('detail')}")
        if l and not l.get("passed"):
            failed.append(f"{w} large: {l.get('error') or l.get('detail')}")
        r = l or s
        print(f"| {w} | {cs} | {cl} | {f(s.get('kernel_ms_median'), 4)} | {f(l.get('kernel_ms_median'), 4)} "
              f"| {regs(r) if r else ''} | {local(r) if r else ''} |")
    print(f"\n{sum(1 for w in names if small.get(w, {}).get('passed'))} of {len(small)} pass at the small size, "
          f"{sum(1 for w in names if large.get(w, {}).get('passed'))} of {len(large)} at the large size.")
    for x in failed:
        print(f"- {x}")

    # Inlined over separately compiled, per (size, SMs) pair found.
    pairs = []
    for p in sorted(glob.glob(os.path.join(d, "calls-*sm.json"))):
        m = re.match(r"calls-(small|large)-(\d+)sm\.json$", os.path.basename(p))
        if m and os.path.exists(p[:-5] + "-inlined.json"):
            pairs.append((m.group(1), int(m.group(2)), load(p), load(p[:-5] + "-inlined.json")))
    if not pairs:
        return 0
    pairs.sort(key=lambda t: (t[1], t[0] != "small"))
    cols = [f"{size}, {sms} SMs" for size, sms, _, _ in pairs]
    print("\nInlined over separately compiled (kernel time, median of 5 runs):\n")
    print("| workload | " + " | ".join(f"GPU {c}" for c in cols) + "".join(f" | model {lab}" for lab, _ in models) + " |")
    print("|---|" + "--:|" * (len(cols) + len(models)))
    wls = sorted(set().union(*[set(p[3]) for p in pairs]))
    colvals = [[] for _ in pairs] + [[] for _ in models]
    for w in wls:
        cells = []
        for i, (_, _, b, inl) in enumerate(pairs):
            ok = b.get(w, {}).get("passed") and inl.get(w, {}).get("passed")
            sp = b[w]["kernel_ms_median"] / inl[w]["kernel_ms_median"] if ok and inl[w]["kernel_ms_median"] else None
            colvals[i].append(sp)
            cells.append(f(sp, 2))
        for j, (_, m) in enumerate(models):
            colvals[len(pairs) + j].append(m.get(w))
            cells.append(f(m.get(w), 2))
        print(f"| {w} | " + " | ".join(cells) + " |")
    print("| geomean | " + " | ".join(f(geomean(v), 2) for v in colvals) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
