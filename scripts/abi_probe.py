#!/usr/bin/env python3
"""Probe NVIDIA's calling convention with ptxas -v on small generated PTX.

Where ptxas exists (CUDA at /usr/local/cuda, or PTXAS=path), compiles each
probe for sm_75 and prints one Markdown row per probe: the spill-store bytes
and stack frame ptxas reports for the probed function (and, for a kernel, its
registers). docs/abi.md keeps the
table and what it shows about the convention our back end models.

    scripts/abi_probe.py            # prints the table
    scripts/abi_probe.py --write D  # also writes each probe as D/NN.ptx (tests/backend/abi_probes)
"""
import os
import re
import subprocess
import sys
import tempfile

PTXAS = os.environ.get("PTXAS", "/usr/local/cuda/bin/ptxas")
HDR = ".version 8.0\n.target sm_75\n.address_size 64\n"


def leaf(n, name="leaf"):
    """A leaf holding n loaded values live at once (volatile loads, used in reverse)."""
    b = [f".visible .func (.param .b32 r) {name}(.param .b64 p)", "{", f".reg .b32 %q<{n + 2}>;",
         ".reg .b64 %pd<2>;", "ld.param.u64 %pd1, [p];"]
    b += [f"ld.volatile.global.u32 %q{i}, [%pd1+{4 * i}];" for i in range(n)]
    b.append(f"mov.u32 %q{n}, 0;")
    b += [f"mad.lo.u32 %q{n}, %q{n}, 3, %q{i};" for i in reversed(range(n))]
    b += [f"st.param.b32 [r], %q{n};", "ret;", "}"]
    return "\n".join(b) + "\n"


def caller(k, after, callee_decl):
    """mid: k values live across one call to `leaf`, then `after` values loaded after it."""
    n = k + after + 2
    b = [callee_decl, ".visible .func (.param .b32 r) mid(.param .b64 p)", "{", f".reg .b32 %q<{n + 2}>;",
         ".reg .b64 %pd<2>;", ".reg .b32 %c<2>;", "ld.param.u64 %pd1, [p];"]
    b += [f"ld.volatile.global.u32 %q{i}, [%pd1+{4 * i}];" for i in range(k)]
    b.append("{\n.param .b64 a;\n.param .b32 rr;\nst.param.b64 [a], %pd1;\ncall.uni (rr), leaf, (a);\n"
             "ld.param.b32 %c1, [rr];\n}")
    b.append(f"mov.u32 %q{n}, %c1;")
    b += [f"mad.lo.u32 %q{n}, %q{n}, 3, %q{i};" for i in reversed(range(k))]
    if after:
        b.append("ld.param.u64 %pd1, [p];")
        b += [f"ld.volatile.global.u32 %q{k + i}, [%pd1+{4 * i}];" for i in range(after)]
        b += [f"mad.lo.u32 %q{n}, %q{n}, 5, %q{k + i};" for i in reversed(range(after))]
    b += [f"st.param.b32 [r], %q{n};", "ret;", "}"]
    return "\n".join(b) + "\n"


EXTERN = ".extern .func (.param .b32 r) leaf(.param .b64 p);"


def kernel_caller(k):
    """A kernel with k values live across one call to an extern `leaf`: where ptxas keeps
    them (a kernel saves nothing for a caller) shows which registers a call preserves."""
    n = k + 2
    b = [EXTERN, ".visible .entry k(.param .u64 p)", "{", f".reg .b32 %q<{n + 2}>;",
         ".reg .b64 %pd<2>;", ".reg .b32 %c<2>;", "ld.param.u64 %pd1, [p];", "cvta.to.global.u64 %pd1, %pd1;"]
    b += [f"ld.volatile.global.u32 %q{i}, [%pd1+{4 * i}];" for i in range(k)]
    b.append("{\n.param .b64 a;\n.param .b32 rr;\nst.param.b64 [a], %pd1;\ncall.uni (rr), leaf, (a);\n"
             "ld.param.b32 %c1, [rr];\n}")
    b.append(f"mov.u32 %q{n}, %c1;")
    b += [f"mad.lo.u32 %q{n}, %q{n}, 3, %q{i};" for i in reversed(range(k))]
    b += [f"st.global.u32 [%pd1], %q{n};", "ret;", "}"]
    return "\n".join(b) + "\n"


def indirect(kind):
    """A small leaf called from a kernel directly or through a function pointer."""
    call = ("call (b), %rd3, (a), proto;" if kind != "direct" else "call (b), leaf, (a);")
    table = ".global .align 8 .u64 table[1] = {leaf};\n" if kind != "direct" else ".global .align 8 .u64 table[1];\n"
    if kind == "taken":  # address taken, but called directly
        call = "call (b), leaf, (a);"
    return HDR + leaf(2) + table + f"""
.visible .entry k(.param .u64 o)
{{
.reg .b64 %rd<4>;
.reg .b32 %r<2>;
ld.param.u64 %rd1, [o];
mov.u64 %rd2, table;
ld.global.u64 %rd3, [%rd2];
{{
.param .b64 a;
.param .b32 b;
st.param.b64 [a], %rd1;
proto: .callprototype (.param .b32 _) _ (.param .b64 _);
{call}
ld.param.b32 %r1, [b];
}}
st.u32 [%rd1], %r1;
ret;
}}
"""


PROBES = [
    ("leaf, 8 values live, compiled alone (-c)", HDR + leaf(8), "leaf", True),
    ("leaf, 30 values live, compiled alone (-c)", HDR + leaf(30), "leaf", True),
    ("leaf, 60 values live, compiled alone (-c)", HDR + leaf(60), "leaf", True),
    ("calls an extern function, 0 values live across", HDR + caller(0, 0, EXTERN), "mid", True),
    ("calls an extern function, 1 value live across", HDR + caller(1, 0, EXTERN), "mid", True),
    ("calls an extern function, 4 values live across", HDR + caller(4, 0, EXTERN), "mid", True),
    ("calls an extern function, 8 values live across", HDR + caller(8, 0, EXTERN), "mid", True),
    ("calls an extern function, 16 values live across", HDR + caller(16, 0, EXTERN), "mid", True),
    ("calls an extern function, 40 values live only after it", HDR + caller(0, 40, EXTERN), "mid", True),
    ("calls a leaf defined in the unit, 8 values live across", HDR + leaf(4) + caller(8, 0, ""), "mid", True),
    ("a leaf called directly by a kernel", indirect("direct"), "leaf", False),
    ("the same leaf, its address also taken", indirect("taken"), "leaf", False),
    ("the same leaf called through a function pointer", indirect("indirect"), "leaf", False),
    ("a kernel calls an extern function, 20 values live across", HDR + kernel_caller(20), "k", True),
    ("a kernel calls an extern function, 40 values live across", HDR + kernel_caller(40), "k", True),
]


def main():
    if not os.access(PTXAS, os.X_OK):
        sys.exit(f"abi_probe: no ptxas at {PTXAS} (set PTXAS)")
    write = sys.argv[2] if len(sys.argv) > 2 and sys.argv[1] == "--write" else None
    if write:
        os.makedirs(write, exist_ok=True)
    print("| probe | function | spill stores (B) | stack frame (B) | registers (kernels) |")
    print("|---|---|--:|--:|--:|")
    with tempfile.TemporaryDirectory() as d:
        for i, (title, text, fn, compile_only) in enumerate(PROBES):
            if write:
                with open(os.path.join(write, f"{i:02d}.ptx"), "w") as f:
                    f.write(f"// abi_probe {i:02d}: {title} (function {fn})\n" + text)
            path = os.path.join(d, "probe.ptx")
            with open(path, "w") as f:
                f.write(text)
            cmd = [PTXAS, "-arch=sm_75", "-v", path, "-o", os.devnull] + (["-c"] if compile_only else [])
            out = subprocess.run(cmd, capture_output=True, text=True)
            if out.returncode:
                sys.exit(f"abi_probe: ptxas failed on '{title}':\n{out.stderr}")
            m = re.search(r"Function properties for " + re.escape(fn) +
                          r"\s*\n\s*(\d+) bytes stack frame, (\d+) bytes spill stores", out.stderr)
            if not m:
                sys.exit(f"abi_probe: no properties for {fn} in '{title}':\n{out.stderr}")
            regs = re.search(r"Compiling entry function '" + re.escape(fn) + r"'.*?Used (\d+) registers", out.stderr, re.S)
            print(f"| {title} | `{fn}` | {m.group(2)} | {m.group(1)} | {regs.group(1) if regs else ''} |")


if __name__ == "__main__":
    main()
