#!/usr/bin/env python3
"""The registers ptxas' SASS names, from a cubin (sm_75 and later), without nvdisasm.

For every kernel (.text.<name> section) prints the register count the cubin
gives the driver (the top byte of the section's sh_info, the figure ptxas -v
reports) and the highest general register its instructions name, read from
the fixed register fields of the 128-bit encoding: Rd (bits 16-23), Ra
(24-31) and Rc (64-71), and Rb (32-39) for the opcodes whose b operand is a
register (ALU forms with bit 9 of the opcode clear are register forms).
RZ (255) is not a register; uniform-datapath instructions (ULDC, S2UR, U*)
write uniform registers, which the count does not include, so their Rd is
skipped. This is a reading of the encoding good enough for small probes
(tests/backend/probes); it is not a disassembler.

Usage: scripts/sass_regs.py FILE.cubin...
"""
import struct
import sys

# Opcodes (low 12 bits, sm_75 encoding) whose destination is a uniform
# register: ULDC (0xab9), S2UR (0x9c3) and the uniform ALU forms (0x88x-0x8cx).
UNIFORM_DST = {0xab9, 0x9c3, 0x882, 0x883, 0x886, 0x887, 0x88a, 0x88b, 0x890, 0x891, 0x892, 0x895, 0x897, 0x89a,
               0x89c, 0x89d, 0x8a4, 0x8a5, 0x8a6, 0x8a7, 0x8ab, 0x8bd, 0x8be, 0x8bf, 0x8c0, 0x8c3}
NOP_BRA_EXIT = {0x918, 0x947, 0x94d}
STORES = {0x385, 0x386, 0x387, 0x388}  # ST, STG, STL, STS: Rb is the data register


def sections(data):
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    secs = [struct.unpack_from("<IIQQQQII", data, shoff + i * shentsize) for i in range(shnum)]
    stroff = secs[shstrndx][4]
    for name, _typ, _flags, _addr, off, size, _link, info in secs:
        end = data.index(b"\0", stroff + name)
        yield data[stroff + name:end].decode(), off, size, info


def highest(data, off, size):
    top = -1
    for k in range(0, size, 16):
        lo, hi = struct.unpack_from("<QQ", data, off + k)
        op = lo & 0xFFF
        if op in NOP_BRA_EXIT:
            continue
        form = op & 0xE00  # 0x200 R,R  0x400 R,imm  0x600 R,c[]  0x800 imm  0xa00 c[]
        fields = [(lo >> 24) & 0xFF]
        if op not in UNIFORM_DST:
            fields.append((lo >> 16) & 0xFF)
        if (form == 0x200 and op < 0x380) or op in STORES:
            fields.append((lo >> 32) & 0xFF)
        if form in (0x200, 0x400, 0x600) and op < 0x380:
            fields.append(hi & 0xFF)
        top = max([top] + [r for r in fields if r != 255])
    return top


def main(paths):
    if not paths:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    print(f"{'kernel':<24} {'count':>5} {'highest':>7}")
    for p in paths:
        data = open(p, "rb").read()
        if data[:4] != b"\x7fELF":
            print(f"sass_regs.py: error: {p} is not an ELF cubin", file=sys.stderr)
            return 1
        for name, off, size, info in sections(data):
            if name.startswith(".text."):
                h = highest(data, off, size)
                print(f"{name[6:]:<24} {info >> 24:>5} {'R' + str(h) if h >= 0 else '-':>7}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
