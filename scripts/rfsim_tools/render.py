"""The report's blocks rendered as Markdown and as self-contained HTML.

A block is ("h1", text), ("h2", text), ("p", text with `code` spans), ("ul", [items]),
("table", head, rows, sortable) or ("img", plot name, caption); plots are plots/<name>.png.
"""

import base64
import html
import os


def md_escape(s):
    return str(s).replace("|", "\\|").replace("\n", " ")


def to_markdown(bl):
    out = []
    for blk in bl:
        kind = blk[0]
        if kind == "h1":
            out.append(f"# {blk[1]}\n")
        elif kind == "h2":
            out.append(f"## {blk[1]}\n")
        elif kind == "p":
            out.append(f"{blk[1]}\n")
        elif kind == "ul":
            out.append("\n".join(f"- {i}" for i in blk[1]) + "\n")
        elif kind == "table":
            head, rows = blk[1], blk[2]
            lines = ["| " + " | ".join(md_escape(h) for h in head) + " |",
                     "|" + "|".join("---" for _ in head) + "|"]
            lines += ["| " + " | ".join(md_escape(x) for x in r) + " |" for r in rows]
            out.append("\n".join(lines) + "\n")
        elif kind == "img":
            out.append(f"![{blk[1]}](plots/{blk[1]}.png)\n\n{blk[2]}\n")
    return "\n".join(out)


HTML_HEAD = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>rfsim comparison</title>
<style>
body { font-family: sans-serif; max-width: 1200px; margin: 2em auto; padding: 0 1em; color: #222; }
table { border-collapse: collapse; margin: 1em 0; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: right; }
th { background: #f0f0f0; }
th.sortable { cursor: pointer; }
td:nth-child(-n+3), th:nth-child(-n+3) { text-align: left; }
img { max-width: 100%; }
figure { margin: 1.5em 0; }
code { background: #f4f4f4; padding: 0 0.2em; }
</style>
<script>
// Click a column heading to sort the table by it (numbers numerically); again to reverse.
function sortBy(th) {
  const table = th.closest("table"), body = table.tBodies[0];
  const col = Array.from(th.parentNode.children).indexOf(th);
  const dir = th.dataset.dir === "asc" ? -1 : 1;
  th.dataset.dir = dir === 1 ? "asc" : "desc";
  const key = r => { const t = r.children[col].textContent; const n = parseFloat(t); return isNaN(n) ? t : n; };
  Array.from(body.rows).sort((a, b) => {
    const x = key(a), y = key(b);
    return dir * (typeof x === typeof y ? (x < y ? -1 : x > y ? 1 : 0) : (typeof x === "number" ? -1 : 1));
  }).forEach(r => body.appendChild(r));
}
</script>
</head><body>
"""


def inline_code(text):
    """`code` spans of the Markdown text as <code> (the only markup the blocks use)."""
    parts = html.escape(text).split("`")
    return "".join(f"<code>{p}</code>" if i % 2 else p for i, p in enumerate(parts))


def to_html(bl, plots_dir):
    out = [HTML_HEAD]
    for blk in bl:
        kind = blk[0]
        if kind in ("h1", "h2"):
            out.append(f"<{kind}>{html.escape(blk[1])}</{kind}>")
        elif kind == "p":
            out.append(f"<p>{inline_code(blk[1])}</p>")
        elif kind == "ul":
            out.append("<ul>" + "".join(f"<li>{html.escape(i)}</li>" for i in blk[1]) + "</ul>")
        elif kind == "table":
            head, rows, sortable = blk[1], blk[2], blk[3]
            ths = "".join(f'<th class="sortable" onclick="sortBy(this)">{html.escape(h)}</th>' if sortable
                          else f"<th>{html.escape(h)}</th>" for h in head)
            trs = "".join("<tr>" + "".join(f"<td>{html.escape(str(x))}</td>" for x in r) + "</tr>" for r in rows)
            out.append(f"<table><thead><tr>{ths}</tr></thead><tbody>{trs}</tbody></table>")
        elif kind == "img":
            with open(os.path.join(plots_dir, blk[1] + ".png"), "rb") as f:
                data = base64.b64encode(f.read()).decode("ascii")
            out.append(f'<figure><img alt="{html.escape(blk[1])}" src="data:image/png;base64,{data}">'
                       f"<figcaption>{html.escape(blk[2])}</figcaption></figure>")
    out.append("</body></html>\n")
    return "\n".join(out)

