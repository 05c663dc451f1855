"""compare.csv: one row per workload x configuration x variant, its columns in a fixed order
(docs/compare.md, "compare.csv columns")."""

import csv
import io

from .common import role_order

# CSV columns that come before the per-run groups (l1d.*, instrs.*, stall.*, energy.*).
LEAD_COLUMNS = ["config", "variant", "workload", "status", "passed", "speedup", "cycles", "clock_mhz",
                "sim_time_us", "warp_instrs", "thread_instrs", "ipc", "rf_reads", "rf_writes",
                "bank_conflicts", "l1d.accesses", "l1d.local"]
TAIL_COLUMNS = ["host_seconds", "run_seconds", "resumed", "returncode", "dir", "error"]
GROUP_PREFIXES = ["l1d.", "instrs.", "stall.", "energy."]
ENERGY_SCALARS = ["energy.total", "energy.power", "energy.per_warp_instr", "energy.gops_per_watt"]


def energy_order(key):
    """The energy columns: the totals and ratios first, then dynamic per structure, then static."""
    if key in ENERGY_SCALARS:
        return (0, ENERGY_SCALARS.index(key), "")
    return (1 if key.startswith("energy.dynamic.") else 2, 0, key)


def csv_columns(runs):
    keys = set()
    for r in runs:
        keys.update(r.get("metrics", {}))
    groups = []
    for prefix in GROUP_PREFIXES:
        mine = sorted(k for k in keys if k.startswith(prefix) and k not in LEAD_COLUMNS)
        if prefix == "instrs.":
            mine.sort(key=lambda k: role_order(k[len(prefix):]))
        elif prefix == "energy.":
            mine.sort(key=energy_order)
        groups += mine
    return LEAD_COLUMNS + groups + TAIL_COLUMNS


def csv_text(runs):
    cols = csv_columns(runs)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(cols)
    for r in runs:
        m = r.get("metrics", {})
        row = []
        for c in cols:
            v = r.get(c) if c in ("config", "variant", "workload", "status", "speedup", "run_seconds",
                                  "resumed", "returncode", "dir", "error") else m.get(c)
            if isinstance(v, bool):
                v = "true" if v else "false"
            row.append("" if v is None else (repr(v) if isinstance(v, float) else str(v)))
        w.writerow(row)
    return buf.getvalue()
