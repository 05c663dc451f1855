#!/usr/bin/env python3
"""Runs every command of the README's "Using it" section, as written, in a
temporary folder (with build/ and workloads/ of this checkout linked in), and
checks that each exits 0 and writes what the README says it writes. A command
that stands for the user's own program, or runs for minutes, is skipped with
its reason printed.

    readme_commands.py BUILD_DIR
"""
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Skipped, by the command's first words after build/rfsim, with the reason.
SKIP = {
    "exec --timing -- ./my_app": "stands for your own application; tests/cudart runs CUDA programs through rfsim exec",
    "compare --app": "stands for your own application (./hotspot); tests/cudart runs CUDA programs through rfsim exec",
    "compare -w calls,spills": "39 timing runs, a minute or more; 'compare: end to end, stopped and resumed' "
                               "runs a comparison and its report",
    "report results/x": "needs the comparison above",
    "cost": "synthesizes the whole 64-warp unit, minutes; 'app: cost synthesizes a 4-warp rename unit from the "
            "command line' runs the same command on a small unit, scripts/cost.sh the full one",
}


def using_it_commands(readme):
    """The commands of the README's "Using it" code block: (command, comment)."""
    text = open(readme, encoding="utf-8").read()
    section = text.split("## Using it", 1)[1]
    block = section.split("```", 2)[1]
    out = []
    for line in block.splitlines():
        line = line.strip()
        if not line:
            continue
        cmd, _, comment = line.partition("#")
        out.append((cmd.strip(), comment.strip()))
    return out


def results_folder(output, cwd):
    m = re.search(r"^results: (.+)$", output, re.M)
    if not m:
        return None
    return os.path.join(cwd, m.group(1).strip())


def check_written(cmd, output, cwd):
    """What the README says the command writes; returns the problems."""
    problems = []
    words = shlex.split(cmd)
    sub = words[1]
    if sub in ("run", "demo", "cost"):
        folder = results_folder(output, cwd)
        if not folder or not os.path.isdir(folder):
            return [f"no 'results: FOLDER' line naming a folder (output: {output[-300:]!r})"]
        # README "Results": every run writes these, manifest.json last; the
        # folder's default name is the one the command's --help gives.
        want = ["config.yaml", "stats.json", "manifest.json"]
        if sub == "run":
            want.append("checks.json")
            if "--timing" in words:
                want.append("hierarchy.json")
        for f in want:
            if not os.path.isfile(os.path.join(folder, f)):
                problems.append(f"{folder}: no {f}")
        if not os.path.basename(folder).startswith(sub + "-"):
            problems.append(f"{folder}: not named results/{sub}-<config>-<time> as `rfsim {sub} --help` says")
        if "--maxrregcount" in words:
            # The limit must change the machine program: fewer registers, spills.
            limit = int(words[words.index("--maxrregcount") + 1])
            stats = json.load(open(os.path.join(folder, "stats.json")))
            for name, w in stats["workloads"].items():
                s = w["summary"]
                if s["max_regs"]["value"] > limit or s["static_spill_bytes"]["value"] == 0:
                    problems.append(f"{name} under --maxrregcount {limit}: {s['max_regs']['value']} registers, "
                                    f"{s['static_spill_bytes']['value']} spill bytes: the limit changes nothing")
        if "--trace" in words:
            vcd = os.path.join(cwd, words[words.index("--trace") + 1])
            for f in (vcd, vcd[:-4] + ".gtkw"):
                if not os.path.isfile(f):
                    problems.append(f"no {f}")
        return problems
    if sub == "compare":
        out = words[words.index("-o") + 1]
        if not os.path.isfile(os.path.join(cwd, out, "compare.json")):
            problems.append(f"no {out}/compare.json")
    if sub == "config" and "--reference" in words and "pipeline.livelock_cycles" not in output:
        problems.append("the reference lacks keys")
    if sub in ("workloads", "mechanisms", "ptx", "backend", "config") and not output.strip():
        problems.append("printed nothing")
    return problems


def check_facts(build):
    """Numbers and lists the README and the help give, against the program."""
    problems = []
    rfsim = os.path.join(build, "rfsim")
    listed = subprocess.run([rfsim, "workloads"], capture_output=True, text=True, check=True).stdout
    n = len([line for line in listed.splitlines() if line.strip()])
    m = re.search(r"(\d+) CUDA programs", open(os.path.join(REPO, "README.md"), encoding="utf-8").read())
    if not m or int(m.group(1)) != n:
        problems.append(f"README.md says {m.group(1) if m else 'no number of'} CUDA programs; "
                        f"`rfsim workloads` lists {n}")
    configs = sorted(f[:-5] for f in os.listdir(os.path.join(REPO, "configs")) if f.endswith(".yaml"))
    for how, argv in (("rfsim compare --help", [rfsim, "compare", "--help"]),
                      ("compare.py --help", [sys.executable, os.path.join(REPO, "scripts", "compare.py"), "--help"])):
        text = " ".join(subprocess.run(argv, capture_output=True, text=True).stdout.split())
        missing = [c for c in configs if c not in text]
        if missing:
            problems.append(f"{how} does not list the configurations {', '.join(missing)}")
    return problems


def main():
    build = os.path.abspath(sys.argv[1])
    facts = check_facts(build)
    for pr in facts:
        print(f"FAIL {pr}")
    commands = using_it_commands(os.path.join(REPO, "README.md"))
    if len(commands) < 10:
        print(f"FAIL: only {len(commands)} commands found in README.md's 'Using it' block")
        return 1
    failed = len(facts)
    with tempfile.TemporaryDirectory(prefix="rfsim-readme-") as tmp:
        os.symlink(build, os.path.join(tmp, "build"))
        os.symlink(os.path.join(REPO, "workloads"), os.path.join(tmp, "workloads"))
        for cmd, comment in commands:
            if not cmd.startswith("build/rfsim "):
                print(f"FAIL: {cmd!r}: not a build/rfsim command")
                failed += 1
                continue
            rest = cmd[len("build/rfsim "):]
            reason = next((why for key, why in SKIP.items() if rest.startswith(key)), None)
            if reason:
                print(f"SKIPPED {cmd}: {reason}")
                continue
            start = time.monotonic()
            p = subprocess.run(shlex.split(cmd), cwd=tmp, stdin=subprocess.DEVNULL, capture_output=True, text=True)
            took = time.monotonic() - start
            problems = [] if p.returncode == 0 else [f"exit status {p.returncode}: {p.stderr.strip()[-500:]}"]
            if p.returncode == 0:
                problems += check_written(cmd, p.stdout + p.stderr, tmp)
            print(f"{'ok  ' if not problems else 'FAIL'} {cmd}  ({took:.1f} s)")
            for pr in problems:
                print(f"     {pr}")
            failed += bool(problems)
    print(f"{failed} failed" if failed else "every command ran as the README says")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
