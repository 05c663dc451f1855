"""What rfsim compare and rfsim report share: names, JSON files in and out, numbers."""

import hashlib
import json
import math
import os

# The variant every other one is compared with (always run; no mechanism, no override).
BASE = "base"

# The back end's instruction roles (ptx::mroleName), in its order: the order of the CSV's
# instrs.* columns and of the report's stacks.
ROLE_NAMES = ["code", "spill", "fill", "save", "restore", "stack-adjust", "arg-move", "arg-stack"]


class InputError(Exception):
    """A file the script reads is missing or is not what it should be."""


def role_order(role):
    """Sort key: the back end's roles in its order, then any other name."""
    return (ROLE_NAMES.index(role) if role in ROLE_NAMES else len(ROLE_NAMES), role)


def read_json(path, missing_hint=""):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except FileNotFoundError:
        raise InputError(f"{path}: missing" + (f" ({missing_hint})" if missing_hint else ""))
    except (OSError, ValueError) as e:
        raise InputError(f"{path}: not valid JSON: {e}")


def sha256(path):
    """The SHA-256 of a file's bytes, in hex."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def write_atomic(path, text):
    """Writes a temporary file and renames it into place: a reader never sees half a file."""
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def number(v):
    """v if it is a finite int or float (not a bool), else None."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    return v if math.isfinite(v) else None


def geomean(values):
    """Geometric mean of the positive values, None when there are none."""
    xs = [x for x in values if number(x) is not None and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None
