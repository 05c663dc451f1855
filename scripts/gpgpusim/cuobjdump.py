#!/usr/bin/env python3
"""A stand-in for the two cuobjdump commands GPGPU-Sim runs, for a CUDA install without
cuobjdump (the pip-style CUDA 13 here has none).

GPGPU-Sim (CUDA >= 6 path, libcuda/cuda_runtime_api.cc) lists the PTX files of the
application with `cuobjdump -lptx APP` and writes each with `cuobjdump -xptx NAME APP`, then
parses them and runs ptxas on them. This reads the PTX entries of the fatbins in the
executable's .nv_fatbin section (layout in docs/cudart.md, "The fatbin") and answers both
in cuobjdump's format: "PTX file    1: APP.1.sm_75.ptx". Only uncompressed entries are read:
build the application with `nvcc --no-compress`. Nothing else of cuobjdump is implemented.
"""
import os
import struct
import sys


def nv_fatbin(path):
    data = open(path, "rb").read()
    if data[:4] != b"\x7fELF" or data[4] != 2:
        sys.exit(f"cuobjdump.py: {path}: not a 64-bit ELF file")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    sections = []
    for i in range(shnum):
        name, _typ, _flags, _addr, off, size = struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize)
        sections.append((name, off, size))
    stroff = sections[shstrndx][1]
    for name, off, size in sections:
        end = data.index(b"\0", stroff + name)
        if data[stroff + name:end] == b".nv_fatbin":
            return data[off:off + size]
    sys.exit(f"cuobjdump.py: {path}: no .nv_fatbin section")


def ptx_entries(blob):
    """Yield (arch, text) for every PTX entry of every fatbin in the section."""
    pos = 0
    while pos + 16 <= len(blob):
        magic, _ver, hsize, fsize = struct.unpack_from("<IHHQ", blob, pos)
        if magic != 0xBA55ED50:
            pos += 8  # fatbins are 8-byte aligned; skip padding
            continue
        e = pos + hsize
        end = e + fsize
        while e < end:
            kind, = struct.unpack_from("<H", blob, e)
            ehsize, payload = struct.unpack_from("<IQ", blob, e + 4)
            arch, = struct.unpack_from("<I", blob, e + 28)
            flags, = struct.unpack_from("<Q", blob, e + 40)
            if kind == 1:
                if flags & (0x8000 | 0x2000):
                    sys.exit("cuobjdump.py: a compressed PTX entry: build the application with nvcc --no-compress")
                text = blob[e + ehsize:e + ehsize + payload].rstrip(b"\0")
                yield arch, text
            e += ehsize + payload
        pos = end


def main(argv):
    if len(argv) == 3 and argv[1] == "-lptx":
        app = argv[2]
        for i, (arch, _) in enumerate(ptx_entries(nv_fatbin(app)), 1):
            print(f"PTX file {i:4d}: {os.path.basename(app)}.{i}.sm_{arch}.ptx")
        return 0
    if len(argv) == 4 and argv[1] == "-xptx":
        want, app = argv[2], argv[3]
        for i, (arch, text) in enumerate(ptx_entries(nv_fatbin(app)), 1):
            name = f"{os.path.basename(app)}.{i}.sm_{arch}.ptx"
            if name == want:
                with open(name, "wb") as f:
                    f.write(text + b"\n")
                print(f"Extracting PTX file and ptxas options {i:4d}: {name} -arch=sm_{arch}")
                return 0
        sys.exit(f"cuobjdump.py: no PTX file named {want} in {app}")
    sys.exit("usage: cuobjdump.py -lptx APP | -xptx NAME APP (a stand-in for GPGPU-Sim, see its header)")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
