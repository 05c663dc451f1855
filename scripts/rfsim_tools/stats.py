"""A run's results folder as rfsim writes it: stats.json (rfsim-stats/2, docs/statistics.md)
and the resolved config.yaml; and one workload's statistics as flat metrics (compare.csv)."""

import os
import re

from .common import InputError, number, read_json

SCHEMA = "rfsim-stats/2"

# workloads.<w>.total.energy (and each launch's energy): the statistics read, and their units.
# dynamic and static are objects keyed by structure ("regfile_read", "sm", "<mech>.<structure>").
ENERGY_UNITS = {"total": "nJ", "dynamic": "nJ", "static": "nJ", "per_warp_instr": "nJ",
                "power": "W", "gops_per_watt": "ratio"}


class StatsError(InputError):
    """stats.json is missing, is not rfsim-stats/2, or lacks what is asked of it."""


# ---------------------------------------------------------------- the statistics tree

def load_stats(run_dir):
    """The run's stats.json, checked to be rfsim-stats/2."""
    path = os.path.join(run_dir, "stats.json")
    try:
        doc = read_json(path, "written by rfsim run")
    except InputError as e:
        raise StatsError(str(e))
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA or not isinstance(doc.get("workloads"), dict):
        found = doc.get("schema") if isinstance(doc, dict) else None
        raise StatsError(f"{path}: not {SCHEMA} (schema {found!r}); this script reads {SCHEMA} only")
    return doc


def workload(stats, name, run_dir=""):
    """workloads.<name>: passed, detail, summary, and with --timing launches and total."""
    w = stats["workloads"].get(name)
    if not isinstance(w, dict):
        raise StatsError(f"{os.path.join(run_dir, 'stats.json')}: no workload {name!r} "
                         f"(it has {', '.join(stats['workloads']) or 'none'})")
    return w


def is_stat(node):
    """A statistic is {"value": V, "unit": U, "desc": D}; a group is any other object."""
    return isinstance(node, dict) and "value" in node and "unit" in node


def find(group, path):
    """The statistic (or group) at a dotted path of group names, None where there is none."""
    node = group
    for part in path.split("."):
        if not isinstance(node, dict) or is_stat(node) or part not in node:
            return None
        node = node[part]
    return node


def lookup(group, path):
    """The value of the statistic at a dotted path, None where there is none."""
    node = find(group, path)
    return node["value"] if is_stat(node) else None


def vector_items(v):
    """A Vector's numeric elements as [(name, number)]: an object keyed by name, or an array."""
    if isinstance(v, dict):
        return [(str(k), x) for k, x in v.items() if number(x) is not None]
    if isinstance(v, list):
        return [(str(i), x) for i, x in enumerate(v) if number(x) is not None]
    return []


def vector_sum(v):
    """A scalar itself, a Vector's elements summed; None for anything else."""
    if number(v) is not None:
        return v
    items = vector_items(v)
    return sum(x for _, x in items) if items else None


# ---------------------------------------------------------------- config.yaml

def read_config(run_dir):
    """The resolved config.yaml's top-level keys and section.key pairs, as text ({} without one).

    Read without a YAML library: rfsim writes one key per line, sections at column 0 and their
    keys indented by two; deeper levels (mechanisms.<m>.<key>) are not needed here.
    """
    out, section = {}, None
    try:
        with open(os.path.join(run_dir, "config.yaml"), encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError:
        return out
    for line in lines:
        text = line.split("#", 1)[0].rstrip()
        m = re.fullmatch(r"( *)([A-Za-z0-9_]+):\s*(.*)", text)
        if not m:
            continue
        indent, key, value = len(m.group(1)), m.group(2), m.group(3)
        if indent == 0:
            section = key if value == "" else None
            if value:
                out[key] = value
        elif indent == 2 and section:
            out[f"{section}.{key}"] = value
    return out


def config_number(config, key):
    try:
        return float(config[key])
    except (KeyError, ValueError):
        return None


# ---------------------------------------------------------------- flat metrics

def energy_metrics(energy, where):
    """({metric: value}, {metric: unit}) of an energy group: energy.total, energy.dynamic.<s>,
    energy.static.<p>, energy.power, energy.per_warp_instr, energy.gops_per_watt.
    No group (a build without the energy model): no metrics."""
    metrics, units = {}, {}
    if energy is None:
        return metrics, units
    if not isinstance(energy, dict):
        raise StatsError(f"{where}: energy is not a group")
    for name, unit in ENERGY_UNITS.items():
        node = energy.get(name)
        if node is None:
            continue
        if not is_stat(node) or node["unit"] != unit:
            raise StatsError(f"{where}: energy.{name} is not a statistic in {unit}")
        value = node["value"]
        if name in ("dynamic", "static"):
            if not isinstance(value, dict):
                raise StatsError(f"{where}: energy.{name} is not an object keyed by structure")
            for part, x in vector_items(value):
                metrics[f"energy.{name}.{part}"] = x
                units[f"energy.{name}.{part}"] = unit
        elif number(value) is not None:  # null: a ratio over no time or no instructions
            metrics[f"energy.{name}"] = value
            units[f"energy.{name}"] = unit
    return metrics, units


def run_metrics(run_dir, name):
    """One workload of a `rfsim run --timing` folder as flat metrics (compare.csv's columns).

    Returns (metrics, units, detail). A statistic the run lacks is simply absent; a stats.json
    that is not rfsim-stats/2, or a workload without its check or its total, is a StatsError.
    """
    where = f"{os.path.join(run_dir, 'stats.json')}: workloads.{name}"
    w = workload(load_stats(run_dir), name, run_dir)
    total, summary = w.get("total"), w.get("summary")
    if not isinstance(w.get("passed"), bool):
        raise StatsError(f"{where}: no passed (the CPU check)")
    if not isinstance(summary, dict):
        raise StatsError(f"{where}: no summary")
    if not isinstance(total, dict) or not isinstance(total.get("gpu"), dict):
        raise StatsError(f"{where}: no total.gpu (the run was not made with --timing)")
    gpu = total["gpu"]
    m, units = {"passed": w["passed"]}, {}

    def put(key, value, unit):
        if number(value) is not None:
            m[key], units[key] = value, unit

    def put_stat(key, group, path, reduce=lambda v: v):
        node = find(group, path)
        if is_stat(node):
            put(key, reduce(node["value"]), node["unit"])

    for key in ("cycles", "warp_instrs", "thread_instrs", "ipc"):
        put_stat(key, gpu, key)
    # Sampled simulation (docs/sampling.md): the workload's cycles and
    # instructions are the detailed ones plus what was extrapolated; the
    # other metrics count the detailed part.
    extra, functional = lookup(gpu, "sample.cycles_extrapolated"), lookup(gpu, "sample.warp_instrs_functional")
    if number(extra) and "cycles" in m:
        m["cycles"] += extra
        m["warp_instrs"] = m.get("warp_instrs", 0) + (number(functional) or 0)
        put_stat("thread_instrs", summary, "thread_instrs")
        m["ipc"] = m["warp_instrs"] / m["cycles"] if m["cycles"] else 0.0
        put_stat("sample.share_functional", gpu, "sample.share_functional")
    put("clock_mhz", config_number(read_config(run_dir), "gpu.clock_mhz"), "MHz")
    if m.get("clock_mhz") and "cycles" in m:
        put("sim_time_us", m["cycles"] / m["clock_mhz"], "microsecond")
    for key in ("rf_reads", "rf_writes", "bank_conflicts"):
        put_stat(key, gpu, "sm.opcoll." + key, vector_sum)  # per bank: summed
    put_stat("l1d.accesses", gpu, "l1d.accesses")
    kinds = vector_items(lookup(gpu, "l1d.accesses_by_kind"))
    for kind, x in kinds:
        put(f"l1d.{kind}", x, "count")
    if kinds:
        # Local memory is the spills, fills and the call stack.
        put("l1d.local", sum(x for k, x in kinds if k.startswith("local")), "count")
    for reason, x in vector_items(lookup(gpu, "sm.issue.stall_cycles")):
        reason = re.sub(r"^s\d+\.", "", reason)  # per scheduler (s0.scoreboard): summed by reason
        reason = "issued" if reason == "none" else reason
        put(f"stall.{reason}", m.get(f"stall.{reason}", 0) + x, "cycle")
    for role, x in vector_items(lookup(summary, "warp_instrs_by_role")):
        put(f"instrs.{role}", x, "count")
    energy, energy_units = energy_metrics(total.get("energy"), f"{where}.total")
    m.update(energy)
    units.update(energy_units)
    wall = find(summary, "wall_time")
    if is_stat(wall) and number(wall["value"]) is not None:
        if wall["unit"] != "microsecond":
            raise StatsError(f"{where}: summary.wall_time is in {wall['unit']!r}, not microsecond")
        put("host_seconds", wall["value"] / 1e6, "second")
    return m, units, w.get("detail")
