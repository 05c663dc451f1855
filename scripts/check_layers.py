#!/usr/bin/env python3
"""The model's layers point one way (docs/architecture.md): checks every
#include "folder/..." of model/ against the folders each layer may not
include, and that the model reads no environment variable. Exits 1 with
one line per violation (file:line: what it includes and why not)."""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent / "model"

# layer folder -> folders it must not include (higher layers)
FORBIDDEN = {
    "common": ["config", "stats", "ptx", "func", "runtime", "backend", "sm", "mem", "gpu", "mech", "energy", "app", "cudart"],
    "ptx": ["func", "runtime", "backend", "sm", "mem", "gpu", "mech", "energy", "app", "cudart"],
    "func": ["runtime", "backend", "sm", "mem", "gpu", "mech", "energy", "app", "cudart"],
    "config": ["func", "runtime", "backend", "sm", "mem", "gpu", "mech", "energy", "app", "cudart"],
    "stats": ["func", "runtime", "backend", "sm", "mem", "gpu", "mech", "energy", "app", "cudart"],
    "backend": ["runtime", "sm", "mem", "gpu", "mech", "energy", "app", "cudart"],
    "mem": ["runtime", "backend", "sm", "gpu", "mech", "app", "cudart"],
    "sm": ["runtime", "backend", "gpu", "mech", "app", "cudart"],
    "gpu": ["runtime", "backend", "mech", "app", "cudart"],
    "energy": ["runtime", "backend", "mech", "app", "cudart"],
    "runtime": ["app", "cudart"],
    "mech": ["app", "cudart"],
    "app": ["cudart"],
}
# getenv is allowed only where the model looks up an external program on
# PATH (the cost flow's tool runner, rfsim exec), never to configure the
# model -- except in the CUDA runtime library's session, inside an
# application's process, where the environment is the only way in
# (rfsim exec sets it; docs/cudart.md).
GETENV_ALLOWED = {"cost/tool_runner.cpp", "app/cmd_exec.cpp", "cudart/session.cpp"}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/')

errors = []
for path in sorted(ROOT.rglob("*")):
    if path.suffix not in (".h", ".cpp"):
        continue
    rel = path.relative_to(ROOT)
    layer = rel.parts[0]
    for n, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
        m = INCLUDE.match(line)
        if m and m.group(1) in FORBIDDEN.get(layer, []):
            errors.append(f"model/{rel}:{n}: {layer}/ includes {m.group(1)}/ (a higher layer)")
        if "getenv" in line and str(rel) not in GETENV_ALLOWED and not line.lstrip().startswith("//"):
            errors.append(f"model/{rel}:{n}: getenv in the model (configure through the configuration instead)")
for e in errors:
    print(e)
sys.exit(1 if errors else 0)
