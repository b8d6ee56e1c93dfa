"""The pieces a report is made of (headings, text, tables, figures) and how numbers read in
them; the renderers and every report's builder share them."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class Heading:
    level: int
    text: str


@dataclass(frozen=True)
class Text:
    text: str


@dataclass(frozen=True)
class Table:
    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    marks: tuple[str, ...] = ()  # per row: "worse", "regressed", "better" or "" (HTML colour)


@dataclass(frozen=True)
class Figure:
    """A PNG (base64) the HTML embeds; the markdown names it only."""

    caption: str
    png: str


Block = Heading | Text | Table | Figure
Figures = Mapping[str, Callable[[], str | None]]  # figure key -> lazily drawn PNG
# scenario -> proposition -> (published share of the audience reached, its source)
References = Mapping[str, Mapping[str, tuple[float, str]]]


def num(value: float | None, signed: bool = False) -> str:
    """A fixed three-decimal number ('—' for none), never '-0.000'."""
    if value is None:
        return "—"
    text = f"{value:.3f}"
    text = "0.000" if text == "-0.000" else text
    return "+" + text if signed and not text.startswith("-") else text


def interval(low: float | None, high: float | None) -> str:
    return "—" if low is None or high is None else f"[{num(low)}, {num(high)}]"
