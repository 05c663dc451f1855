#!/usr/bin/env python3
"""scripts/check_layers.py on fixture/, a tree with one violation of each
kind: it must exit 1 and name each offending file:line with its rule, and
nothing else. Then on a copy of the tree with the violations taken out and
the table pasted into its docs/architecture.md: it must exit 0.
(layers_point_one_way checks the repository itself.)"""
import pathlib
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parent.parent
SCRIPT = REPO / "scripts" / "check_layers.py"
FIXTURE = HERE / "fixture"

# file:line -> what the message must say
EXPECTED = {
    "model/common/up.h:3": "common/ (layer 0) includes sm/ (layer 4, higher)",
    "model/ptx/peer.cpp:3": "ptx/ includes config/ (the same layer",
    "model/func/env.cpp:3": "getenv in the model",
    "model/mech/alpha/a.cpp:3": "mech/alpha/ includes mech/beta/ (one mechanism does not include another)",
    "model/mech/registry.cpp:2": "mech's own files includes mech/beta/",
    "model/cudart/session.cpp:3": "cudart/ includes app/ (the same layer",
    "hw/device.h:3": "hw/ includes cudart/ (the same layer",
    "workloads/w/w_host.cpp:3": "workloads/ (layer 10) includes app/ (layer 11, higher)",
    "workloads/w/w_host.cpp:4": "workloads/ includes config/occupancy.h (of the model, workloads/ and hw/ include only",
    "model/extra/": "in no layer",
    "docs/architecture.md:3": "the layer table differs",
}


def run(root, *args):
    return subprocess.run([sys.executable, str(SCRIPT), "--root", str(root), *args],
                          capture_output=True, text=True)


class CheckLayersTest(unittest.TestCase):
    def test_each_violation_is_named(self):
        r = run(FIXTURE)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        lines = r.stdout.splitlines()
        for where, what in EXPECTED.items():
            hits = [l for l in lines if l.startswith(where + ":") or l.startswith(where + " ")]
            self.assertEqual(len(hits), 1, f"{where}: expected one line, got {hits}\n{r.stdout}")
            self.assertIn(what, hits[0])
        self.assertEqual(len(lines), len(EXPECTED), r.stdout)

    def test_clean_tree_passes(self):
        with tempfile.TemporaryDirectory() as tmp:
            root = pathlib.Path(tmp) / "tree"
            shutil.copytree(FIXTURE, root)
            shutil.rmtree(root / "model" / "extra")
            for where in EXPECTED:
                path, _, line = where.partition(":")
                if not line or path.endswith(".md"):
                    continue
                f = root / path
                text = f.read_text().splitlines(keepends=True)
                text[int(line) - 1] = "// (removed)\n"
                f.write_text("".join(text))
            doc = run(root, "--doc")
            self.assertEqual(doc.returncode, 0)
            (root / "docs" / "architecture.md").write_text("# Architecture\n\n" + doc.stdout)
            r = run(root)
            self.assertEqual(r.returncode, 0, r.stdout)
            self.assertEqual(r.stdout, "")

    def test_a_missing_table_is_named(self):
        with tempfile.TemporaryDirectory() as tmp:
            root = pathlib.Path(tmp)
            (root / "docs").mkdir()
            (root / "docs" / "architecture.md").write_text("# Architecture\n")
            r = run(root)
            self.assertEqual(r.returncode, 1)
            self.assertIn("docs/architecture.md: no layer table", r.stdout)


if __name__ == "__main__":
    sys.dont_write_bytecode = True
    unittest.main()
