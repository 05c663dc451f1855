#!/usr/bin/env python3
"""The operand reuse flags of real SASS beside the model's rule (docs/sm.md, "Sub-cores and operand
reuse").

For each workload's committed PTX, ptxas compiles it for each architecture (sm_75, sm_90), the
SASS is disassembled, and two comparisons are made:

1. The rule on the SASS itself. The model's rule (func::setReuseFlags) is applied to the SASS
   instruction stream: an operand of an unpredicated ALU instruction in slot k is flagged when the
   next instruction of the basic block that reads a register in slot k is an unpredicated ALU
   instruction reading the same one, with no write of it, control transfer or predicated
   instruction in between. Its flags are set beside ptxas' `.reuse` flags operand by operand: agreement,
   precision (of the rule's flags, the share ptxas also set) and recall (of ptxas' flags, the share
   the rule finds).
2. The share of flagged operands per kernel: ptxas' in the SASS, and the model's in its own machine
   program (`rfsim backend --json`, reuse_flags), which is a different instruction stream.

Needs ptxas and a disassembler: cuobjdump or nvdisasm of the CUDA toolkit (CUDA_HOME, /usr/local/cuda)
or on PATH. An older nvdisasm (Debian 12's nvidia-cuda-toolkit 11.8) refuses the ELF header CUDA 12.8
and later write; the script then rewrites the header's OS/ABI and flags fields to the older encoding
of the same architecture in a temporary copy. Not part of the tests.

Usage: scripts/reuse_flags.py [-w WORKLOAD,...] [--arch 75,90] [--rfsim build/rfsim] [--json OUT]
"""
import argparse
import glob
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# SASS opcodes that transfer control or wait: the rule looks no further.
CONTROL = {"BRA", "BRX", "JMP", "JMX", "CALL", "RET", "EXIT", "BAR", "BSSY", "BSYNC", "WARPSYNC", "BREAK",
           "KILL", "BPT", "YIELD", "NANOSLEEP", "RTT"}
# Opcodes that are not the ALU's: memory, shared-memory, texture and warp-wide operations go to
# the MIO queue, whose operands ptxas never flags.
NOT_ALU = {"LD", "LDG", "LDS", "LDL", "LDC", "LDSM", "ST", "STG", "STS", "STL", "ATOM", "ATOMS", "ATOMG", "RED",
           "REDG", "TEX", "TLD", "TLD4", "TXQ", "SHFL", "MATCH", "VOTE", "S2R", "CS2R", "S2UR", "BAR", "MEMBAR",
           "DEPBAR", "ULDC", "UMOV"}
# Opcodes whose first operand is a source (no register destination).
NO_DEST = {"ST", "STG", "STS", "STL", "RED", "REDG", "BRA", "BRX", "JMP", "CALL", "RET", "EXIT", "BAR", "BSSY",
           "BSYNC", "WARPSYNC", "MEMBAR", "FENCE", "ERRBAR", "CCTL", "NOP", "BPT", "YIELD", "NANOSLEEP", "DEPBAR",
           "SYNCS", "ARRIVES"}
INSTR = re.compile(r"/\*[0-9a-f]+\*/\s+(.*?)\s*;")
LABEL = re.compile(r"^\s*\.L_x_\d+:")
FUNC = re.compile(r"^\s*(?:Function : (\S+)|\.text\.(\S+):)")
REG = re.compile(r"(?<![\w.])R(\d+)((?:\.\w+)*)")


def tool(name):
    for d in (os.environ.get("CUDA_HOME", ""), "/usr/local/cuda"):
        p = os.path.join(d, "bin", name)
        if d and os.access(p, os.X_OK):
            return p
    return shutil.which(name)


def old_header(cubin, out):
    """A copy of `cubin` with the pre-12.8 ELF header encoding (OS/ABI 0x33, ABI version 7, flags
    arch | (arch << 16) | 0x500) of its architecture, for an older nvdisasm."""
    b = bytearray(open(cubin, "rb").read())
    flags = struct.unpack_from("<I", b, 0x30)[0]
    if b[7] == 0x33:
        shutil.copy(cubin, out)
        return
    arch = (flags >> 8) & 0xFF
    b[7], b[8] = 0x33, 7
    struct.pack_into("<I", b, 0x30, (arch << 16) | 0x500 | arch)
    open(out, "wb").write(b)


def disassemble(ptx, arch, tmp):
    ptxas = tool("ptxas")
    if not ptxas:
        sys.exit("reuse_flags.py: ptxas not found (CUDA_HOME, /usr/local/cuda/bin or PATH)")
    cubin = os.path.join(tmp, f"k{arch}.cubin")
    r = subprocess.run([ptxas, f"-arch=sm_{arch}", "-c", ptx, "-o", cubin], capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError(f"ptxas sm_{arch} {ptx}: {r.stderr.strip()}")
    cuobjdump, nvdisasm = tool("cuobjdump"), tool("nvdisasm")
    if cuobjdump:
        r = subprocess.run([cuobjdump, "-sass", cubin], capture_output=True, text=True)
        if r.returncode == 0:
            return r.stdout
    if not nvdisasm:
        sys.exit("reuse_flags.py: neither cuobjdump nor nvdisasm could disassemble the cubin")
    r = subprocess.run([nvdisasm, "-c", cubin], capture_output=True, text=True)
    if r.returncode:
        patched = os.path.join(tmp, f"k{arch}.old.cubin")
        old_header(cubin, patched)
        r = subprocess.run([nvdisasm, "-c", patched], capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError(f"nvdisasm sm_{arch} {ptx}: {r.stderr.strip()}")
    return r.stdout


def split_operands(text):
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def parse(sass):
    """{function: [instr]} with instr = dict(op, slots=[(reg or None, reuse)], writes=set, start)."""
    funcs, cur, start = {}, None, True
    for line in sass.splitlines():
        m = FUNC.match(line)
        if m:
            cur = funcs.setdefault(m.group(1) or m.group(2), [])
            start = True
            continue
        if LABEL.match(line):
            start = True
            continue
        m = INSTR.search(line)
        if not m or cur is None:
            continue
        guarded = re.match(r"@!?U?P\w+\s", m.group(1)) is not None
        text = re.sub(r"^@!?U?P\w+\s+", "", m.group(1))
        parts = text.split(None, 1)
        op = parts[0]
        base = op.split(".")[0]
        ops = split_operands(parts[1]) if len(parts) > 1 else []
        writes, srcs = set(), ops
        if base not in NO_DEST and ops:
            d = REG.search(ops[0]) if not ops[0].startswith("[") else None
            if d:
                r = int(d.group(1))
                wide = ".WIDE" in op or ".64" in op or base in ("DADD", "DMUL", "DFMA", "LDG", "LDS", "LDL", "LD")
                writes = {r, r + 1} if wide else {r}
            srcs = ops[1:]
            while srcs and re.fullmatch(r"!?U?P(\d+|T)", srcs[0]):  # predicate destinations
                srcs = srcs[1:]
        slots = []
        for o in srcs:
            g = REG.search(o)
            if g and not o.lstrip("-!|~").startswith("UR"):
                slots.append((int(g.group(1)), ".reuse" in g.group(2)))
            else:
                slots.append((None, False))  # a constant, an immediate, RZ, a predicate or a uniform register
        cur.append({"op": base, "slots": slots, "writes": writes, "start": start, "guarded": guarded})
        start = False
    return funcs


def rule(code):
    """The model's flags (func::setReuseFlags) on a parsed SASS function: one list of booleans per
    instruction, per slot. Only unpredicated ALU instructions flag or are flagged for; a control
    transfer or a predicated instruction ends the search."""
    def alu(ins):
        return ins["op"] not in NOT_ALU and ins["op"] not in CONTROL and not ins["guarded"]

    flags = []
    for i, ins in enumerate(code):
        f = []
        for k, (r, _) in enumerate(ins["slots"]):
            hit = False
            if r is not None and r not in ins["writes"] and alu(ins):
                q = i
                while q + 1 < len(code) and not code[q + 1]["start"]:
                    q += 1
                    nxt = code[q]
                    if k < len(nxt["slots"]) and nxt["slots"][k][0] is not None:
                        hit = nxt["slots"][k][0] == r and alu(nxt)
                        break
                    if r in nxt["writes"] or nxt["op"] in CONTROL or nxt["guarded"]:
                        break
            f.append(hit)
        flags.append(f)
    return flags


def compare(funcs):
    per = {}
    for name, code in funcs.items():
        ours = rule(code)
        c = {"operands": 0, "sass": 0, "rule": 0, "both": 0}
        for ins, f in zip(code, ours):
            for (r, s), o in zip(ins["slots"], f):
                if r is None:
                    continue
                c["operands"] += 1
                c["sass"] += s
                c["rule"] += o
                c["both"] += s and o
        per[name] = c
    return per


def model_flags(rfsim, workload):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "b.json")
        r = subprocess.run([rfsim, "backend", "-w", workload, "--json", out], capture_output=True, text=True)
        if r.returncode:
            return {}
        j = json.load(open(out))
    mods = j.get("modules", j if isinstance(j, list) else [])
    res = {}
    for m in mods:
        for name, c in (m.get("reuse_flags") or {}).items():
            res[name] = c
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-w", "--workloads", default="all")
    ap.add_argument("--arch", default="75,90")
    ap.add_argument("--rfsim", default=os.path.join(ROOT, "build", "rfsim"))
    ap.add_argument("--json")
    a = ap.parse_args()
    names = sorted(os.path.basename(d) for d in glob.glob(os.path.join(ROOT, "workloads", "*"))
                   if glob.glob(os.path.join(d, "*.ptx")))
    if a.workloads != "all":
        names = [n for n in a.workloads.split(",") if n in names]
    archs = [x.strip() for x in a.arch.split(",")]
    result = {"archs": archs, "workloads": {}}
    totals = {x: {"operands": 0, "sass": 0, "rule": 0, "both": 0} for x in archs}
    model_tot = {"operands": 0, "flagged": 0}
    with tempfile.TemporaryDirectory() as tmp:
        for w in names:
            entry = {"sass": {}, "model": model_flags(a.rfsim, w) if os.access(a.rfsim, os.X_OK) else {}}
            for c in entry["model"].values():
                model_tot["operands"] += c["operands"]
                model_tot["flagged"] += c["flagged"]
            for ptx in sorted(glob.glob(os.path.join(ROOT, "workloads", w, "*.ptx"))):
                if ptx.endswith(".inlined.ptx"):
                    continue
                for x in archs:
                    try:
                        per = compare(parse(disassemble(ptx, x, tmp)))
                    except RuntimeError as e:
                        print(f"reuse_flags.py: {e}", file=sys.stderr)
                        continue
                    entry["sass"].setdefault(x, {}).update(per)
                    for c in per.values():
                        for k in totals[x]:
                            totals[x][k] += c[k]
            result["workloads"][w] = entry
    result["totals"] = totals
    result["model_totals"] = model_tot
    print("| arch | register operands | ptxas .reuse | rule's flags | both | agreement | precision | recall |")
    print("|---|--:|--:|--:|--:|--:|--:|--:|")
    for x in archs:
        t = totals[x]
        n = t["operands"]
        agree = (n - (t["sass"] - t["both"]) - (t["rule"] - t["both"])) / n if n else 0
        prec = t["both"] / t["rule"] if t["rule"] else 0
        rec = t["both"] / t["sass"] if t["sass"] else 0
        print(f"| sm_{x} | {n} | {t['sass']} ({100 * t['sass'] / max(n, 1):.1f} %) | {t['rule']} | {t['both']} | "
              f"{100 * agree:.1f} % | {100 * prec:.1f} % | {100 * rec:.1f} % |")
    if model_tot["operands"]:
        print(f"\nThe model's machine programs: {model_tot['flagged']} of {model_tot['operands']} register operands "
              f"flagged ({100 * model_tot['flagged'] / model_tot['operands']:.1f} %).")
    if a.json:
        with open(a.json + ".partial", "w") as f:
            json.dump(result, f, indent=1)
        os.replace(a.json + ".partial", a.json)


if __name__ == "__main__":
    main()
