"""The report as a document: a list of sections (headings, paragraphs, tables,
figures) written as report.md and as a self-contained report.html.

Nothing here knows about results or figures' content: report.py assembles the
sections, tables.py and figures/ provide what goes in them, and this module
only escapes and lays them out, the same content in both formats.
"""

from __future__ import annotations

import base64
import html
import os


class Doc:
    """The report's blocks in reading order.

    Blocks are tuples: ("h", level, text), ("p", text), ("table", headers,
    rows) and ("figure", file name, caption), the file being a PNG in the
    output directory.  HTML escapes all text; Markdown escapes table cells and
    captions (where "|", brackets or a newline would break the layout) and
    takes headings and paragraphs as written.
    """

    def __init__(self):
        self.blocks: list[tuple] = []

    def h(self, level: int, text: str) -> None:
        self.blocks.append(("h", level, text))

    def p(self, text: str) -> None:
        self.blocks.append(("p", text))

    def table(self, headers: list[str], rows: list[list[str]]) -> None:
        self.blocks.append(("table", headers, rows))

    def figure(self, name: str, caption: str) -> None:
        self.blocks.append(("figure", name, caption))

    def title(self) -> str:
        """The first heading: the HTML page's title."""
        return next((b[2] for b in self.blocks if b[0] == "h"), "report")

    def markdown(self) -> str:
        """report.md: figures by reference to the PNG files next to it."""
        out = []
        for b in self.blocks:
            if b[0] == "h":
                out.append("#" * b[1] + " " + b[2])
            elif b[0] == "p":
                out.append(b[1])
            elif b[0] == "table":
                out.append(_md_table(b[1], b[2]))
            elif b[0] == "figure":
                out.append(f"![{b[1][:-4]}]({b[1]})\n\n*{_md_escape(b[2])}*")
        return "\n\n".join(out) + "\n"

    def html(self, out_dir: str, title: str) -> str:
        """report.html: figures read from out_dir and inlined as base64 data
        URIs, so the one file can be mailed or attached."""
        body = []
        for b in self.blocks:
            if b[0] == "h":
                body.append(f"<h{b[1]}>{html.escape(b[2])}</h{b[1]}>")
            elif b[0] == "p":
                body.append(f"<p>{html.escape(b[1])}</p>")
            elif b[0] == "table":
                head = "".join(f"<th>{html.escape(c)}</th>" for c in b[1])
                rows = "".join("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in r)
                               + "</tr>" for r in b[2])
                body.append(f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>")
            elif b[0] == "figure":
                with open(os.path.join(out_dir, b[1]), "rb") as fh:
                    data = base64.b64encode(fh.read()).decode("ascii")
                body.append(f'<figure><img src="data:image/png;base64,{data}" '
                            f'alt="{html.escape(b[1])}"><figcaption><code>{html.escape(b[1])}'
                            f"</code>: {html.escape(b[2])}</figcaption></figure>")
        style = ("body{font-family:sans-serif;max-width:1200px;margin:2em auto;padding:0 1em;"
                 "color:#222}table{border-collapse:collapse;margin:1em 0;font-size:90%}"
                 "th,td{border:1px solid #ccc;padding:3px 8px;text-align:left}"
                 "th{background:#f0f0f0}tbody tr:nth-child(even){background:#fafafa}"
                 "figure{margin:1.5em 0}img{max-width:100%;height:auto}"
                 "figcaption{font-size:90%;color:#444}")
        return ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
                f"<title>{html.escape(title)}</title><style>{style}</style></head>\n<body>\n"
                + "\n".join(body) + "\n</body></html>\n")

    def write(self, out_dir: str) -> str:
        """Write report.md and report.html to out_dir (which holds the
        figures already); return the path of report.md."""
        md_path = os.path.join(out_dir, "report.md")
        with open(md_path, "w", encoding="utf-8") as fh:
            fh.write(self.markdown())
        with open(os.path.join(out_dir, "report.html"), "w", encoding="utf-8") as fh:
            fh.write(self.html(out_dir, self.title()))
        return md_path


def _md_escape(s: str) -> str:
    """Text safe inside a table cell or an emphasised caption: one line, no
    column separators, no link brackets."""
    return str(s).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ") \
        .replace("[", "\\[").replace("]", "\\]")


def _md_table(headers: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(_md_escape(h) for h in headers) + " |",
             "| " + " | ".join("---" for _ in headers) + " |"]
    for r in rows:
        lines.append("| " + " | ".join(_md_escape(c) for c in r) + " |")
    return "\n".join(lines)
