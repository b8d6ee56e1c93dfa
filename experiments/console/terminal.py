"""What reaches a person's terminal: user text shown as text, never as markup or control codes,
never with a credential in it.

Names, values and messages can come from user files, from trace folders or from a crafted
manifest. Printed raw they could clear the screen, fake a hyperlink, or (through rich's markup)
rewrite or break the message itself. Everything printed goes through `clean`: secrets masked,
control and bidirectional-override characters shown as escapes, overlong lines cut with a note
of their full length. Styles are applied by us, around the text, never parsed from it.
"""

from __future__ import annotations

import logging
import os
import sys
from typing import Any

from rich.console import Console
from rich.text import Text

from villagelab.safe_text import printable, scrub

LINE_LIMIT = 600  # characters of one line shown; a longer one is cut with a note


def _cut(line: str, limit: int) -> str:
    if len(line) <= limit:
        return line
    return f"{line[:limit]}… (cut: {len(line):,} characters in all)"


def clean(text: Any, limit: int = LINE_LIMIT) -> str:
    """Safe to print: credentials masked, controls escaped, each line at most `limit` long."""
    safe = printable(text)
    return "\n".join(_cut(line, limit) for line in safe.split("\n"))


def cell(value: Any, style: str | None = None) -> Text:
    """A table cell: the value as literal text (a str cell would be parsed as markup)."""
    return Text(clean(value), style=style or "")


def _width() -> int | None:
    # piped output (CI logs, files) gets a readable width instead of rich's 80 columns
    return None if sys.stdout.isatty() or "COLUMNS" in os.environ else 120


class Terminal:
    """One console: `say` prints cleaned text, optionally after a styled label."""

    def __init__(self, stderr: bool = False) -> None:
        self.console = Console(stderr=stderr, width=_width(), highlight=False)

    def say(
        self,
        text: Any = "",
        style: str | None = None,
        *,
        label: str | None = None,
        label_style: str | None = None,
    ) -> None:
        line = Text()
        if label:
            line.append(label, style=label_style or style or "")
            line.append(" ")
        line.append(clean(text), style=style or "")
        self.console.print(line, soft_wrap=True)

    def show(self, renderable: Any) -> None:
        """A rich renderable we built (a table of `cell`s)."""
        self.console.print(renderable)


class _Scrubbed(logging.LogRecord):
    """A log record whose message has its credentials masked (libraries log URIs)."""

    def getMessage(self) -> str:
        return scrub(super().getMessage())


class _ScrubbedStream:
    """stdout or stderr with credentials masked in whatever is written to it — a net for
    libraries that print on their own (MLflow prints run URLs, credentials included)."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(scrub(text))
        return len(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def scrub_output() -> None:
    """From now on nothing this process writes or logs carries a credential: log records and
    warnings are scrubbed whoever makes them, and so is everything written to stdout and
    stderr."""
    logging.setLogRecordFactory(_Scrubbed)
    logging.captureWarnings(True)
    if not isinstance(sys.stdout, _ScrubbedStream):
        sys.stdout, sys.stderr = _ScrubbedStream(sys.stdout), _ScrubbedStream(sys.stderr)


__all__ = ["LINE_LIMIT", "Terminal", "cell", "clean", "scrub_output"]
