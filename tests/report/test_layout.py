#!/usr/bin/python3
"""The report's plots read from matplotlib's own layout (fixtures/compare.json): no legend overlaps
a bar, a value label, the axes or another legend; the speedup plot is on a scale around 1.0 with
every bar's value printed; no stack colour is near white."""

import os
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "scripts"))

import report  # noqa: E402  (scripts/report.py: chooses the Agg backend)
from matplotlib.colors import to_rgb  # noqa: E402
from matplotlib.legend import Legend  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402
from rfsim_tools.common import read_json  # noqa: E402

FIXTURE = os.path.join(HERE, "fixtures", "compare.json")
NEAR_WHITE = 0.72  # luma (Rec. 709 weights on the sRGB values) above which a fill reads as white


def luma(colour):
    r, g, b = to_rgb(colour)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def overlap(a, b):
    """Whether two window extents share an area (touching edges do not count)."""
    return min(a.x1, b.x1) - max(a.x0, b.x0) > 0.5 and min(a.y1, b.y1) - max(a.y0, b.y0) > 0.5


class Layout:
    """One figure's legends, axes, bars and texts as window extents, after a draw."""

    def __init__(self, fig):
        fig.set_dpi(report.DPI)  # as saved: text does not scale exactly with the resolution
        fig.canvas.draw()
        r = fig.canvas.get_renderer()
        self.legends = [c for ax in fig.axes for c in ax.get_children() if isinstance(c, Legend)]
        self.axes = [ax.get_window_extent(r) for ax in fig.axes]
        self.bars = [(ax, p) for ax in fig.axes for p in ax.patches if isinstance(p, Rectangle)]
        self.bar_boxes = [p.get_window_extent(r) for _, p in self.bars if p.get_height() != 0]
        self.texts = [t for ax in fig.axes for t in ax.texts]
        self.text_boxes = [t.get_window_extent(r) for t in self.texts]
        self.legend_boxes = [lg.get_window_extent(r) for lg in self.legends]


def two_variant_fixture():
    """The fixture with a third variant, so that the stacked plots have two legends."""
    doc = read_json(FIXTURE)
    extra = [dict(r, variant="cars2") for r in doc["runs"] if r["variant"] == "cars"]
    doc["runs"] += extra
    doc["variants"] = list(doc.get("variants", [])) + [{"name": "cars2", "spec": "+cars"}]
    return doc


class LayoutTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.figs = {}
        saved = report.save
        report.save = lambda fig, path: cls.figs.setdefault(os.path.splitext(os.path.basename(path))[0], fig)
        try:
            with tempfile.TemporaryDirectory(prefix="rfsim-layout-test-") as out:
                made, _ = report.make_plots(report.Data(two_variant_fixture()), out)
        finally:
            report.save = saved
        cls.made = [name for name, _ in made]
        cls.layouts = {name: Layout(fig) for name, fig in cls.figs.items()}

    def test_every_plot_is_made(self):
        self.assertEqual(sorted(self.made), sorted(report.PLOT_NAMES))

    def test_legends_are_outside_the_axes_and_clear_of_each_other(self):
        for name, lay in self.layouts.items():
            self.assertTrue(lay.legends, f"{name}: no legend")
            for i, box in enumerate(lay.legend_boxes):
                for ax in lay.axes:
                    self.assertFalse(overlap(box, ax), f"{name}: legend {i} covers the axes")
                for bar in lay.bar_boxes:
                    self.assertFalse(overlap(box, bar), f"{name}: legend {i} covers a bar")
                for text in lay.text_boxes:
                    self.assertFalse(overlap(box, text), f"{name}: legend {i} covers a value label")
                for j, other in enumerate(lay.legend_boxes[:i]):
                    self.assertFalse(overlap(box, other), f"{name}: legends {j} and {i} overlap")

    def test_speedup_scale_is_around_one_with_every_value(self):
        fig = self.figs["speedup"]
        ax = fig.axes[0]
        lo, hi = ax.get_ylim()
        self.assertGreater(lo, 0.5, "the speedup axis starts near 0: 0.979 against 1.000 cannot be read")
        self.assertLess(lo, 1.0)
        self.assertGreater(hi, 1.0)
        lay = self.layouts["speedup"]
        bars = [p for _, p in lay.bars]
        # Per workload and the geomean, for cars and cars2: every bar carries its value.
        self.assertEqual(len(bars), 2 * (2 + 1))
        labels = [t.get_text() for t in lay.texts]
        for p in bars:
            value = p.get_y() + p.get_height()  # bars start at 1.0
            self.assertIn(f"{value:.3f}", labels)
        for box in lay.text_boxes:  # the labels stay inside the axes
            self.assertTrue(lay.axes[0].y0 <= box.y0 and box.y1 <= lay.axes[0].y1 + 1, "a value label is cut off")

    def test_no_stack_colour_is_near_white(self):
        for name in ("energy", "stalls", "instructions", "l1d"):
            for _, p in self.layouts[name].bars:
                if p.get_height() > 0:
                    self.assertLess(luma(p.get_facecolor()), NEAR_WHITE,
                                    f"{name}: a part is near white ({p.get_facecolor()})")


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
