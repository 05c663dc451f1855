#!/usr/bin/python3
"""scripts/report.py on a crafted compare.json (fixtures/compare.json: saxpy and deep_calls x
base and cars, with energy): the report's files, its tables, the PNGs' validity, --partial and
its refusal, bad input. Also runs test_stats.py (the stats.json reader behind compare.py) and
test_figures.py (the figure scripts read the statistics JSON)."""

import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import test_figures  # noqa: E402
import test_stats  # noqa: E402

# ctest runs this file only: the stats.json reader's and the figure scripts' tests run with
# the report's.
StatsReaderTest = test_stats.StatsReaderTest
FiguresTest = test_figures.FiguresTest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
REPORT = os.path.join(REPO, "scripts", "report.py")
FIXTURE = os.path.join(HERE, "fixtures", "compare.json")
PLOTS = ["speedup", "instructions", "l1d", "regfile", "stalls", "energy"]
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def png_size(path):
    """(width, height) from the IHDR chunk, which the PNG format puts first."""
    with open(path, "rb") as f:
        head = f.read(24)
    assert head[:8] == PNG_SIGNATURE, f"{path}: not a PNG (signature {head[:8]!r})"
    assert head[12:16] == b"IHDR", f"{path}: first chunk is {head[12:16]!r}, not IHDR"
    return struct.unpack(">II", head[16:24])


class ReportTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="rfsim-report-test-")
        shutil.copy(FIXTURE, os.path.join(self.dir, "compare.json"))

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def edit(self, change):
        path = os.path.join(self.dir, "compare.json")
        with open(path) as f:
            doc = json.load(f)
        change(doc)
        with open(path, "w") as f:
            json.dump(doc, f)

    def report(self, *extra):
        return subprocess.run([sys.executable, REPORT, self.dir, *extra], capture_output=True, text=True)

    def read(self, name):
        with open(os.path.join(self.dir, name), encoding="utf-8") as f:
            return f.read()

    def test_writes_markdown_html_and_plots(self):
        p = self.report()
        self.assertEqual(p.returncode, 0, p.stderr)
        md = self.read("report.md")
        for text in ("Speedup over base: v100", "geometric mean", "saxpy", "deep_calls", "cars"):
            self.assertIn(text, md)
        # deep_calls: base 164927 cycles, cars 150112 -> 1.099; saxpy 1599 / 1601 -> 0.999.
        self.assertIn("| deep_calls | 164927 | 1.099 |", md)
        self.assertIn("| saxpy | 1599 | 0.999 |", md)
        for name in PLOTS:
            self.assertIn(f"(plots/{name}.png)", md)
        # Energy: deep_calls base 11869205 nJ, cars 10882812 nJ -> 0.917; saxpy 118198 / 119073 nJ -> 1.007.
        self.assertIn("## Energy relative to base: v100", md)
        self.assertIn("| deep_calls | 11869 | 0.917 |", md)
        self.assertIn("| saxpy | 118.2 | 1.007 |", md)
        self.assertIn("| geometric mean |  | 0.961 |", md)
        self.assertIn("| energy (µJ) | energy / base | power (W) | GOPS/W |", md)
        self.assertIn("| 10883 | 0.917 | 82.07 | 0.9487 |", md, "cars/deep_calls: energy, ratio, power, GOPS/W")
        self.assertNotIn("No energy statistics", md)
        page = self.read("report.html")
        self.assertTrue(page.startswith("<!DOCTYPE html>"))
        self.assertEqual(page.count('src="data:image/png;base64,'), len(PLOTS), "every plot embedded")
        self.assertNotIn('src="plots/', page, "self-contained: no links to files beside it")
        leftovers = [f for root, _, files in os.walk(self.dir) for f in files if ".tmp" in f]
        self.assertEqual(leftovers, [], "temporary files left behind")

    def test_plots_are_valid_pngs(self):
        self.assertEqual(self.report().returncode, 0)
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.image as mpimg
        for name in PLOTS:
            path = os.path.join(self.dir, "plots", name + ".png")
            self.assertTrue(os.path.isfile(path), f"{name}.png missing")
            self.assertGreater(os.path.getsize(path), 10 * 1024, f"{name}.png is suspiciously small")
            width, height = png_size(path)
            self.assertGreaterEqual(width, 600, name)
            self.assertGreaterEqual(height, 300, name)
            pixels = mpimg.imread(path)  # decodes the whole image: a truncated file fails here
            self.assertEqual(pixels.shape[:2], (height, width), name)

    def test_refuses_incomplete_runs_without_partial(self):
        def fail_one(doc):
            run = doc["runs"][3]  # v100/cars/deep_calls
            run["status"] = "failed"
            run["error"] = "rfsim: error: the SM deadlocked"
            run.pop("metrics")
        self.edit(fail_one)
        p = self.report()
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("v100/cars/deep_calls", p.stderr)
        self.assertIn("the SM deadlocked", p.stderr)
        self.assertIn("--partial", p.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "report.md")))
        self.assertFalse(os.path.exists(os.path.join(self.dir, "report.html")))

    def test_partial_reports_the_complete_runs_and_lists_the_others(self):
        def fail_one(doc):
            doc["runs"][3].update(status="not-run", metrics={})
            doc["runs"][3].pop("speedup")
        self.edit(fail_one)
        p = self.report("--partial")
        self.assertEqual(p.returncode, 0, p.stderr)
        md = self.read("report.md")
        self.assertIn("## Missing runs", md)
        self.assertIn("- v100/cars/deep_calls: not-run", md)
        self.assertIn("| deep_calls | 164927 |  |", md, "no speedup for the missing run")
        self.assertIn("| saxpy | 1599 | 0.999 |", md)
        self.assertIn("Missing runs", self.read("report.html"))
        for name in PLOTS:
            self.assertGreater(os.path.getsize(os.path.join(self.dir, "plots", name + ".png")), 10 * 1024)

    def test_without_energy_or_roles_notes_them(self):
        def strip(doc):
            for r in doc["runs"]:
                r["metrics"] = {k: v for k, v in r["metrics"].items()
                                if not k.startswith(("energy.", "instrs."))}
            doc["units"] = {}
        self.edit(strip)
        p = self.report()
        self.assertEqual(p.returncode, 0, p.stderr)
        md = self.read("report.md")
        self.assertIn("No energy statistics", md)
        self.assertNotIn("Energy relative to base", md)
        self.assertNotIn("GOPS/W", md)
        self.assertIn("no breakdown by role", md)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "plots", "energy.png")))

    def test_energy_in_some_runs_only(self):
        def strip_cars(doc):
            for r in doc["runs"]:
                if r["variant"] == "cars":
                    r["metrics"] = {k: v for k, v in r["metrics"].items() if not k.startswith("energy.")}
        self.edit(strip_cars)
        p = self.report()
        self.assertEqual(p.returncode, 0, p.stderr)
        md = self.read("report.md")
        self.assertIn("| deep_calls | 11869 |  |", md, "no energy ratio where the variant has no energy")
        self.assertIn("(plots/energy.png)", md)

    def test_tolerates_runs_with_few_statistics(self):
        def thin(doc):
            for r in doc["runs"]:
                r["metrics"] = {"cycles": r["metrics"]["cycles"]} if r["variant"] == "base" else {}
                r.pop("speedup", None)
        self.edit(thin)
        p = self.report()
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("| saxpy | 1599 |  |", self.read("report.md"))

    def test_missing_compare_json(self):
        os.remove(os.path.join(self.dir, "compare.json"))
        p = self.report()
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("compare.json: missing", p.stderr)

    def test_invalid_compare_json(self):
        with open(os.path.join(self.dir, "compare.json"), "w") as f:
            f.write('{"schema": "rfsim-compare/1", "runs": [')
        p = self.report()
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("not valid JSON", p.stderr)
        self.edit_raw('{"schema": "rfsim-compare/1", "runs": [{"config": "v100"}]}')
        p = self.report()
        self.assertNotEqual(p.returncode, 0)
        self.assertIn('"runs" must be a list', p.stderr)
        self.edit_raw('{"runs": []}')
        self.assertIn("not a compare.json", self.report().stderr)

    def edit_raw(self, text):
        with open(os.path.join(self.dir, "compare.json"), "w") as f:
            f.write(text)


if __name__ == "__main__":
    unittest.main(verbosity=2)
