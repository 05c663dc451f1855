"""What a run was asked, and whether a complete run in a compare folder answers today's request.

rfsim run and rfsim exec record in stats.json's run.request the simulator's version, the
--config, --set (in order) and --mech given, a hash of the configuration they resolve to
(config.yaml's text), and what ran: the workloads and their size and code, or the application's
command line (docs/statistics.md). rfsim compare reuses a complete run only when that record
matches the request it would make now (docs/compare.md, "Resume").
"""

import os
import subprocess

from .common import InputError, read_json


def content_hash(text):
    """rfsim's rt::contentHash: FNV-1a, 64 bits, of the UTF-8 text, as "fnv1a64:" and 16 hex digits."""
    h = 0xcbf29ce484222325
    for byte in text.encode("utf-8"):
        h = ((h ^ byte) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return f"fnv1a64:{h:016x}"


def rfsim_version(rfsim, cwd):
    """'0.1.0' from `rfsim --version` ('rfsim 0.1.0')."""
    try:
        out = subprocess.run([rfsim, "--version"], cwd=cwd, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        raise InputError(f"cannot ask {rfsim} its version: {e}")
    return out.split()[-1] if out.split() else ""


def flatten_yaml(text):
    """{"sm.scheduler": "gto", ...} from the configuration YAML rfsim writes (config::toYaml: a
    section per line ending in ':', its keys indented two spaces, '#' comments)."""
    flat, path = {}, []
    for line in text.splitlines():
        body = line.split(" #", 1)[0].rstrip() if not line.lstrip().startswith("#") else ""
        if not body.strip():
            continue
        depth = (len(body) - len(body.lstrip(" "))) // 2
        key, _, value = body.strip().partition(":")
        path = path[:depth]
        if value.strip():
            flat[".".join(path + [key])] = value.strip()
        else:
            path.append(key)
    return flat


def config_differences(old_text, new_text, limit=4):
    """'key: A in the run, B asked' for the keys that differ (at most `limit`, then a count)."""
    old, new = flatten_yaml(old_text), flatten_yaml(new_text)
    keys = [k for k in list(new) + [k for k in old if k not in new] if old.get(k) != new.get(k)]
    out = [f"{k}: {old.get(k, '(absent)')} in the run, {new.get(k, '(absent)')} asked" for k in keys[:limit]]
    if len(keys) > limit:
        out.append(f"and {len(keys) - limit} more configuration keys")
    return out


class RequestCheck:
    """Today's request for each run, and the differences from what a run folder records."""

    def __init__(self, rfsim, cwd):
        self.rfsim = rfsim
        self.cwd = cwd
        self.version = None
        self.configs = {}  # (config arg, sets, mech) -> the resolved configuration's YAML

    def resolved(self, asked):
        key = (asked["config"], tuple(asked["sets"]), asked["mech"])
        if key not in self.configs:
            cmd = [self.rfsim, "config", "--config", asked["config"]]
            for s in asked["sets"]:
                cmd += ["--set", s]
            if asked["mech"]:
                cmd += ["--mech", asked["mech"]]
            p = subprocess.run(cmd, cwd=self.cwd, capture_output=True, text=True)
            # An invalid key or mechanism: the run itself will say so; no reuse.
            self.configs[key] = p.stdout if p.returncode == 0 else None
        return self.configs[key]

    def differences(self, asked, folder):
        """([] when the complete run in `folder` was asked exactly `asked`, else why not, one item each;
        the run's request as it recorded it, or None)."""
        if self.version is None:
            self.version = rfsim_version(self.rfsim, self.cwd)
        try:
            doc = read_json(os.path.join(folder, "stats.json"))
        except InputError as e:
            return [str(e)], None
        run = doc.get("run") if isinstance(doc, dict) else None
        req = run.get("request") if isinstance(run, dict) else None
        if not isinstance(req, dict):
            return ["no record of what it was asked (written by an older rfsim)"], None
        out = []
        if req.get("version") != self.version:
            out.append(f"rfsim version {req.get('version')} in the run, {self.version} now")

        def same(field, label, show=lambda x: x):
            if req.get(field) != asked[field]:
                out.append(f"{label}: {show(req.get(field))} in the run, {show(asked[field])} asked")

        listing = lambda xs: ", ".join(xs) if xs else "none"  # noqa: E731
        same("mech", "mechanisms", lambda m: m or "none")
        same("sets", "--set", lambda xs: "[" + ", ".join(xs or []) + "]")
        if "argv" in asked:
            same("argv", "command line", lambda a: " ".join(a) if isinstance(a, list) else a)
        else:
            same("workloads", "workload", listing)
            same("size", "size")
            same("code", "code", lambda c: c or "the workload's own")
        same("timing", "--timing")
        config = self.resolved(asked)
        if config is None:
            out.append("the configuration asked is invalid")
        elif req.get("config_hash") != content_hash(config):
            try:
                with open(os.path.join(folder, "config.yaml"), encoding="utf-8") as f:
                    keys = config_differences(f.read(), config)
            except OSError:
                keys = []
            # The same --set and --mech on another configuration file, or another build's defaults.
            if not out or keys:
                out += keys or [f"configuration {req.get('config_hash')} in the run, {content_hash(config)} asked"]
        return out, req
