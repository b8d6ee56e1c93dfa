"""Phrases from data files filled safely: `{object}` and nothing else a format string can do.

A scenario's phrase ("is closed on day {object}") comes from a file people share. `str.format`
would follow `{object.__class__.__mro__}` or `{object[0]}` into the value, and a format spec
(`{object:>999999999}`) could ask for any amount of memory. Here a phrase may hold only named
fields, without attribute or index access, conversion or format spec; `{{` and `}}` stay
literal braces.
"""

from __future__ import annotations

from string import Formatter

FIELDS = ("object",)


def problem(phrase: str, fields: tuple[str, ...] = FIELDS) -> str | None:
    """What is wrong with `phrase` as a template of `fields` (None: nothing)."""
    named = " or ".join(f"{{{f}}}" for f in fields)
    try:
        parts = list(Formatter().parse(phrase))
    except ValueError as exc:
        return f"a phrase may name only {named} ({exc})"
    for _, field, spec, conversion in parts:
        if field is None:
            continue
        if field not in fields:
            return f"a phrase may name only {named}, not {{{field}}}"
        if spec or conversion:
            return f"a phrase may name only {named}, with no conversion or format spec"
    return None


def fill(phrase: str, fields: tuple[str, ...] = FIELDS, /, **values: object) -> str:
    """`phrase` with its fields replaced by `values` as text (ValueError if the phrase is not
    a plain template of `fields`)."""
    wrong = problem(phrase, fields)
    if wrong is not None:
        raise ValueError(wrong)
    out: list[str] = []
    for literal, field, _, _ in Formatter().parse(phrase):
        out.append(literal)
        if field is not None:
            out.append(str(values[field]))
    return "".join(out)
