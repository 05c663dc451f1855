"""What the rfsim scripts share: reading a run's results (stats.py), what compare and report
have in common (common.py), and the report's Markdown and HTML (render.py).

The entry points (scripts/compare.py, scripts/report.py, scripts/mem_figures.py) put
scripts/ on sys.path and import from here; Debian's python3 and its standard library only.
"""
