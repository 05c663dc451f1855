#!/usr/bin/env python3
"""Checks that two result folders hold the same statistics.

    scripts/stats_diff.py BEFORE AFTER

BEFORE and AFTER are `rfsim compare` folders (or any folders holding
stats.json files). Every stats.json under BEFORE is paired with the file of
the same relative path under AFTER, and the two trees are compared value by
value, except what measures the host rather than the simulated GPU (wall
time, host seconds, instructions per host second, peak memory). Prints one
line per difference (file, path in the tree, both values) and a summary;
exits 1 when a file is missing or any value differs, so a refactoring that
must not change behaviour can be checked with one command (docs/compare.md).
"""
import argparse
import json
import pathlib
import sys

# Keys whose values measure the host, not the simulation: its time and memory,
# and how many host threads ran the functional blocks (sim.threads: the launches
# run on several and the blocks run again alone, which must change nothing else).
HOST_KEYS = {"wall_time", "wall_s", "host_seconds", "host_time", "sim_seconds", "peak_rss",
             "peak_rss_mib", "instrs_per_second", "warp_instrs_per_second", "kips", "elapsed",
             "parallel_launches", "reexecuted_blocks"}


def host_key(key):
    return key in HOST_KEYS or key.startswith("host_") or key.endswith("_per_host_second")


def walk(a, b, path, out, limit):
    if len(out) >= limit:
        return
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if host_key(k):
                continue
            if k not in a or k not in b:
                out.append((f"{path}.{k}", a.get(k, "<missing>"), b.get(k, "<missing>")))
                continue
            walk(a[k], b[k], f"{path}.{k}", out, limit)
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            out.append((f"{path}[len]", len(a), len(b)))
            return
        for i, (x, y) in enumerate(zip(a, b)):
            walk(x, y, f"{path}[{i}]", out, limit)
    elif a != b:
        out.append((path, a, b))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("before", type=pathlib.Path)
    ap.add_argument("after", type=pathlib.Path)
    ap.add_argument("--max", type=int, default=20, help="differences printed per file (default 20)")
    args = ap.parse_args()
    files = sorted(p.relative_to(args.before) for p in args.before.rglob("stats.json"))
    if not files:
        print(f"stats_diff: no stats.json under {args.before}", file=sys.stderr)
        return 1
    bad = 0
    for rel in files:
        other = args.after / rel
        if not other.is_file():
            print(f"{rel}: missing in {args.after}")
            bad += 1
            continue
        diffs = []
        walk(json.loads((args.before / rel).read_text()), json.loads(other.read_text()), "", diffs, args.max)
        if diffs:
            bad += 1
            for path, x, y in diffs:
                print(f"{rel}: {path}: {x!r} -> {y!r}")
    print(f"stats_diff: {len(files)} stats.json compared, {len(files) - bad} identical, {bad} differ or missing")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
