#!/usr/bin/env python3
"""Each kernel's GPU cycles, read by Nsight Compute, beside rfsim-hw's event times.

    ncu --clock-control none --target-processes all --csv --page raw \\
        --metrics gpu__time_duration.sum,sm__cycles_elapsed.max,sm__cycles_elapsed.avg.per_second \\
        build-hw/rfsim-hw --all --size large --reps 0 --json hw.json > ncu.txt
    scripts/ncu_kernels.py ncu.txt --hw hw.json -o ncu.json

rfsim-hw times a launch with CUDA events recorded around it on its stream (docs/hardware.md);
those times include what the GPU does before and after the kernel and are converted to cycles at
the nominal SM clock. Nsight Compute reads the kernel's own duration and the SM cycles that
elapsed during it (`sm__cycles_elapsed.max`: cycles, whatever the clock was), which is what a
cycle-level model is set against (docs/calibration.md, "Measured on an H200").

ncu.txt is rfsim-hw's standard output under ncu: its result lines, ncu's "Connected to process
N" lines, which say which child process ran which workload, and the CSV of every profiled
launch. Writes a JSON list in rfsim-hw's form (one entry per workload: workload, size, device,
passed, kernels), each kernel with `launches`, `cycles` (the sum of sm__cycles_elapsed.max over
its launches), `ns` (the sum of gpu__time_duration), `clock_mhz` (the mean SM clock during its
launches) and `cycles_per_launch`; rfsim-hw's own fields (its event times) are kept beside them
when --hw is given. Exits 1 if a workload ran no profiled launch.
"""
import argparse
import csv
import json
import re
import sys

CONNECTED = re.compile(r"==PROF== Connected to process (\d+)")
RESULT = re.compile(r"^(\S+)\s+(pass|FAIL|fail)\b")
DEVICE = re.compile(r"^device: (.*), kernels on (\d+) SMs")
METRICS = {"ns": "gpu__time_duration.sum", "cycles": "sm__cycles_elapsed.max",
           "hz": "sm__cycles_elapsed.avg.per_second"}
# Kept, summed over the launches, where ncu collected them.
OPTIONAL = {"warp_instrs": "smsp__inst_executed.sum", "thread_instrs": "smsp__thread_inst_executed.sum"}


def number(text, unit):
    v = float(text.replace(",", ""))
    scale = {"ns": 1.0, "us": 1e3, "usecond": 1e3, "ms": 1e6, "msecond": 1e6, "s": 1e9, "second": 1e9,
             "nsecond": 1.0, "hz": 1.0, "khz": 1e3, "mhz": 1e6, "ghz": 1e9}
    return v * scale.get(unit.strip().lower(), 1.0)


def parse(path):
    """{pid: workload}, {workload: passed}, the device line's (device, SMs) and the profiled
    launches as dicts."""
    pid_workload, passed, device, pending = {}, {}, (None, None), None
    csv_lines = []
    for line in open(path, errors="replace"):
        m = CONNECTED.search(line)
        if m:
            pending = m.group(1)
            continue
        if line.startswith('"'):
            csv_lines.append(line)
            continue
        m = DEVICE.match(line)
        if m:
            device = (m.group(1), int(m.group(2)))
            continue
        m = RESULT.match(line)
        if m:
            passed[m.group(1)] = m.group(2) == "pass"
            if pending is not None:
                pid_workload[pending] = m.group(1)
                pending = None
    rows = list(csv.reader(csv_lines))
    heads = [i for i, r in enumerate(rows) if r and r[0] == "ID"]
    if not heads:
        raise SystemExit(f"{path}: no ncu CSV (--csv --page raw) in it")
    launches = []
    for hi in heads:  # one header (and a units row) per process ncu attached to
        head, units = rows[hi], rows[hi + 1]
        col = {k: head.index(v) for k, v in METRICS.items() if v in head}
        missing = [v for k, v in METRICS.items() if k not in col]
        if missing:
            raise SystemExit(f"{path}: ncu did not collect {', '.join(missing)}")
        col.update({k: head.index(v) for k, v in OPTIONAL.items() if v in head})
        for r in rows[hi + 2:]:
            if not r or r[0] == "ID":
                break
            launches.append({"pid": r[head.index("Process ID")], "kernel": r[head.index("Kernel Name")].strip(),
                             **{k: number(r[i], units[i]) for k, i in col.items() if r[i]}})
    return pid_workload, passed, device, launches


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("ncu_output")
    ap.add_argument("--hw", help="rfsim-hw's --json of the same run (its fields are kept)")
    ap.add_argument("--size", choices=["small", "large"], help="the input size (without --hw)")
    ap.add_argument("-o", "--out", required=True)
    a = ap.parse_args()
    pid_workload, passed, (device, sms), launches = parse(a.ncu_output)
    hw = {e["workload"]: e for e in json.load(open(a.hw))} if a.hw else {}
    out, status = {}, 0
    for x in launches:
        w = pid_workload.get(x["pid"])
        if w is None:
            raise SystemExit(f"{a.ncu_output}: process {x['pid']} ran {x['kernel']} but no workload line follows it")
        own = {"workload": w, "passed": passed.get(w, False), "device": device, "sms": sms, "size": a.size}
        e = out.setdefault(w, dict(hw.get(w, {k: v for k, v in own.items() if v is not None}), kernels={}))
        k = e["kernels"].setdefault(x["kernel"], dict(hw.get(w, {}).get("kernels", {}).get(x["kernel"], {})))
        k.setdefault("ncu", {"launches": 0, "cycles": 0.0, "ns": 0.0, "hz": []})
        n = k["ncu"]
        n["launches"] += 1
        n["cycles"] += x["cycles"]
        n["ns"] += x["ns"]
        n["hz"].append(x["hz"])
        for o in OPTIONAL:
            if o in x:
                n[o] = n.get(o, 0) + int(x[o])
    for w, e in out.items():
        for k in e["kernels"].values():
            n = k["ncu"]
            hz = n.pop("hz")
            n["clock_mhz"] = round(sum(hz) / len(hz) / 1e6, 1)
            n["cycles_per_launch"] = round(n["cycles"] / n["launches"], 1)
    for w in hw:
        if w not in out:
            print(f"ncu_kernels: {w}: no profiled launch", file=sys.stderr)
            status = 1
    with open(a.out, "w") as f:
        json.dump([out[w] for w in sorted(out)], f, indent=1)
        f.write("\n")
    print(f"ncu_kernels: {sum(len(e['kernels']) for e in out.values())} kernels of {len(out)} workloads, "
          f"{len(launches)} launches -> {a.out}")
    return status


if __name__ == "__main__":
    sys.exit(main())
