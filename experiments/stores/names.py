"""Names a user gives that become folder names (a study's): checked before anything is written.

A study name becomes `runs/studies/<name>/`, an MLflow experiment and an Optuna study; `../x`
or `/etc` would put the champion's export, its traces and the cache anywhere writable. A name
is one plain path component: letters, digits, '.', '_' and '-', not starting with '.' or '-',
at most 64 characters.
"""

from __future__ import annotations

import re

import click

from policies import InputError

MAX_LENGTH = 64
_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]*")


def check_name(kind: str, value: str) -> str:
    """`value` if it can safely name a folder; otherwise an InputError saying what is allowed."""
    problem = None
    if not _NAME.fullmatch(value):
        problem = (
            "use letters, digits, '.', '_' and '-' only (no '/', spaces or other "
            "characters), not starting with '.' or '-'"
        )
    elif ".." in value:
        problem = "'..' is not allowed in a name"
    elif len(value) > MAX_LENGTH:
        problem = f"at most {MAX_LENGTH} characters (this one has {len(value)})"
    if problem:
        raise InputError(f"{kind} name {value!r}: {problem}")
    return value


def name_option(kind: str):  # type: ignore[no-untyped-def]
    """A click callback that checks an option's value with `check_name`."""

    def callback(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
        if value is None:
            return None
        try:
            return check_name(kind, value)
        except InputError as exc:
            raise click.BadParameter(str(exc)) from None

    return callback
