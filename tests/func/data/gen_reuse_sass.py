#!/usr/bin/env python3
"""Writes reuse_sass.sm_90.sass beside this file: the SASS that ptxas makes of reuse_sass.ptx for
sm_90, as scripts/reuse_flags.py disassembles it (ptxas; cuobjdump -sass, or nvdisasm with the
cubin's ELF header rewritten for an older nvdisasm), cut to each kernel's name line and its
instructions up to EXIT. tests/func/test_reuse_sass.cpp reads the listing; it needs neither tool.

Usage: tests/func/data/gen_reuse_sass.py   (ptxas and a disassembler as reuse_flags.py finds them)
"""
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "scripts"))

import reuse_flags  # noqa: E402


def main():
    ptx = os.path.join(HERE, "reuse_sass.ptx")
    with tempfile.TemporaryDirectory() as tmp:
        sass = reuse_flags.disassemble(ptx, "90", tmp)
    version = subprocess.run([reuse_flags.tool("ptxas"), "--version"], capture_output=True,
                             text=True).stdout.strip().splitlines()[-1]
    out = ["# SASS of reuse_sass.ptx for sm_90 (tests/func/data/gen_reuse_sass.py),",
           f"# ptxas: {version}"]
    keep = False
    for line in sass.splitlines():
        m = reuse_flags.FUNC.match(line)
        if m:
            out.append(f"Function : {m.group(1) or m.group(2)}")
            keep = True
            continue
        i = reuse_flags.INSTR.search(line)
        if keep and i:
            out.append(line.rstrip())
            if re.match(r"EXIT\b", i.group(1)):
                keep = False
    with open(os.path.join(HERE, "reuse_sass.sm_90.sass"), "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
