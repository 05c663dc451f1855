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
    "common": ["config", "stats", "ptx", "func", "runtime", "backend", "sm", "mem", "gpu", "mech", "energy", "app"],
    "ptx": ["func", "runtime", "backend", "sm", "mem", "gpu", "mech", "energy", "app"],
    "func": ["runtime", "backend", "sm", "mem", "gpu", "mech", "energy", "app"],
    "config": ["func", "runtime", "backend", "sm", "mem", "gpu", "mech", "energy", "app"],
    "stats": ["func", "runtime", "backend", "sm", "mem", "gpu", "mech", "energy", "app"],
    "backend": ["runtime", "sm", "mem", "gpu", "mech", "energy", "app"],
    "mem": ["runtime", "backend", "sm", "gpu", "mech", "app"],
    "sm": ["runtime", "backend", "gpu", "mech", "app"],
    "gpu": ["runtime", "backend", "mech", "app"],
    "energy": ["runtime", "backend", "mech", "app"],
    "runtime": ["app"],
    "mech": ["app"],
}
# getenv is allowed only where the model looks up an external program on
# PATH (the cost flow's tool runner), never to configure the model.
GETENV_ALLOWED = {"cost/tool_runner.cpp"}

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
