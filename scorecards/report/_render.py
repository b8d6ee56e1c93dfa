"""Render report blocks as markdown (figures named, not embedded) or self-contained HTML
(figures embedded as base64 PNG; no external file, script or network fetch)."""

from __future__ import annotations

import html
import re
from collections.abc import Sequence

from ._blocks import Block, Figure, Heading, Table, Text

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 72em; color: #222; }
table { border-collapse: collapse; margin: 0.6em 0 1.2em; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: left; }
th { background: #f3f3f3; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
figure { margin: 0.8em 0 1.6em; } figcaption { font-size: 0.85em; color: #555; }
img { max-width: 100%; }
tr.worse td { background: #fde4e2; } tr.better td { background: #e4f3e1; }
tr.regressed td { background: #f3a9a4; font-weight: 600; }
"""
_NUMBER = re.compile(r"^[+\-]?\d[\d.]*$")


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def markdown(blocks: Sequence[Block]) -> str:
    """The report as markdown; depends on nothing but the blocks' text."""
    out: list[str] = []
    figures = 0
    for block in blocks:
        if isinstance(block, Heading):
            out += ["#" * block.level + " " + block.text, ""]
        elif isinstance(block, Text):
            out += [block.text, ""]
        elif isinstance(block, Table):
            out.append("| " + " | ".join(_cell(h) for h in block.headers) + " |")
            out.append("|" + "|".join("---" for _ in block.headers) + "|")
            out += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in block.rows]
            out.append("")
        elif isinstance(block, Figure):
            figures += 1
            out += [f"*Figure {figures}: {block.caption} (in the HTML report).*", ""]
    return "\n".join(out).rstrip("\n") + "\n"


def _inline(text: str) -> str:
    """Escape, then the two markdown marks the blocks use: `code` and **bold**."""
    text = html.escape(text)
    text = re.sub(r"`([^`]+)`", r"<code>\1</code>", text)
    return re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", text)


def page(blocks: Sequence[Block], title: str) -> str:
    """The report as one self-contained HTML page."""
    body: list[str] = []
    figures = 0
    for block in blocks:
        if isinstance(block, Heading):
            body.append(f"<h{block.level}>{_inline(block.text)}</h{block.level}>")
        elif isinstance(block, Text):
            body.append(f"<p>{_inline(block.text)}</p>")
        elif isinstance(block, Table):
            head = "".join(f"<th>{html.escape(h)}</th>" for h in block.headers)
            marks = block.marks or ("",) * len(block.rows)
            rows = "".join(
                (f'<tr class="{mark}">' if mark else "<tr>")
                + "".join(
                    f'<td class="num">{html.escape(c)}</td>'
                    if _NUMBER.match(c)
                    else f"<td>{html.escape(c)}</td>"
                    for c in row
                )
                + "</tr>"
                for row, mark in zip(block.rows, marks, strict=True)
            )
            body.append(f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>")
        elif isinstance(block, Figure):
            figures += 1
            caption = html.escape(f"Figure {figures}: {block.caption}")
            body.append(
                f'<figure><img alt="{caption}" src="data:image/png;base64,{block.png}">'
                f"<figcaption>{caption}</figcaption></figure>"
            )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head>\n<body>\n"
        + "\n".join(body)
        + "\n</body></html>\n"
    )
