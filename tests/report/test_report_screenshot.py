#!/usr/bin/python3
"""The report's HTML rendered by headless Chromium (scripts/report_screenshot.sh): the page loads,
its plots are drawn at the page's width and the speedup plot is not scaled beyond it. Exits 77
(ctest: skipped) where Chromium is not installed."""

import os
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
SKIP = 77


def main():
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if not browser:
        print("SKIPPED: chromium is not installed (apt-get install chromium): the report's HTML is not rendered")
        return SKIP
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.image as mpimg
    with tempfile.TemporaryDirectory(prefix="rfsim-report-screenshot-") as out:
        shutil.copy(os.path.join(HERE, "fixtures", "compare.json"), out)
        subprocess.run([sys.executable, os.path.join(REPO, "scripts", "report.py"), out], check=True)
        png = os.path.join(out, "page.png")
        subprocess.run([os.path.join(REPO, "scripts", "report_screenshot.sh"), os.path.join(out, "report.html"), png,
                        "1280", "6000"], check=True)
        img = mpimg.imread(png)
        height, width = img.shape[:2]
        assert width == 1280, f"the page is {width} pixels wide, not 1280"
        # The page is not blank: the plots' colours cover a visible share of it.
        rgb = img[..., :3]
        coloured = ((rgb.max(axis=2) - rgb.min(axis=2)) > 0.2).mean()
        assert coloured > 0.02, f"only {coloured:.1%} of the page is coloured: are the plots missing?"
        print(f"report screenshot: {width}x{height}, {coloured:.1%} coloured")
    return 0


if __name__ == "__main__":
    sys.exit(main())
