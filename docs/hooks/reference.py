"""The site's reference pages, written from the code each time the site is built.

Plain functions returning markdown (tests/test_docs_site.py holds them to the code); the
mkdocs-gen-files script beside this file (gen_reference.py) writes each into the build as
reference/<name>.md. Nothing here is checked in as markdown, so the pages cannot drift.
"""

from __future__ import annotations

import ast
import html
import inspect
import io
import math
import re
import tokenize
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import click
import yaml

GENERATED = "<!-- generated at build time by docs/hooks/reference.py: do not edit -->\n\n"


def cell(text: object) -> str:
    """`text` as one markdown table cell: one line, no HTML, no column break, no emphasis (a
    code span is left as it is: markdown shows it literally, pipes included)."""
    flat = " ".join(str(text).split())
    if re.fullmatch(r"`[^`]+`", flat):
        return flat
    return html.escape(flat, quote=False).replace("|", "\\|").replace("*", "\\*")


def table(header: Iterable[str], rows: Iterable[Iterable[object]]) -> str:
    head = list(header)
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def code(text: object) -> str:
    """`text` as inline code (a cell() of it keeps the backticks)."""
    return f"`{text}`"


# --- commands ------------------------------------------------------------------------------


def _commands(
    command: click.Command, ctx: click.Context
) -> Iterator[tuple[click.Context, click.Command]]:
    """Every command under `command`, depth first in the order the group lists them, each
    with its context (parents chained, so the path and the inherited settings are real)."""
    yield ctx, command
    if isinstance(command, click.Group):
        for name, sub in command.commands.items():
            if not sub.hidden:
                yield from _commands(sub, click.Context(sub, info_name=name, parent=ctx))


def _default(param: click.Parameter, info: dict[str, Any]) -> str:
    """The default as `--help` would say it (click's info dict: None when there is none)."""
    if param.required:
        return "required"
    default = info.get("default")
    if default is None or default == () or default == []:
        return ""
    if isinstance(default, bool):
        return "on" if default else "off"
    if isinstance(default, (list, tuple)):
        return ", ".join(str(d) for d in default)
    return str(default)


def _type(param: click.Parameter, info: dict[str, Any]) -> str:
    """What the option takes: a flag, the choices, or the type with its range."""
    kind = param.type
    if getattr(param, "is_flag", False) and not getattr(param, "secondary_opts", None):
        return "flag"
    if isinstance(kind, click.Choice):
        return " | ".join(str(c) for c in kind.choices)
    described = kind.name
    t = info.get("type", {})
    if isinstance(kind, (click.IntRange, click.FloatRange)):
        low, high = t.get("min"), t.get("max")
        if low is not None and high is not None:
            described = f"{low} to {high}"
        elif low is not None:
            described = f"≥ {low}"
        elif high is not None:
            described = f"≤ {high}"
        described = f"{'integer' if isinstance(kind, click.IntRange) else 'number'}, {described}"
    if param.metavar:  # the name the help gives the value, e.g. SECONDS
        described = f"{param.metavar}: {described}"
    if getattr(param, "multiple", False):
        described += ", repeatable"
    return described


def _option_name(param: click.Parameter, ctx: click.Context) -> str:
    if isinstance(param, click.Argument):
        return param.make_metavar(ctx)
    return " / ".join([*param.opts, *param.secondary_opts])


def command_markdown(ctx: click.Context, command: click.Command) -> str:
    """One command's section: usage, help text and a table of its options and arguments."""
    path = ctx.command_path
    depth = path.count(" ") + 1  # villagelab and its commands: ##; a group's commands: ###
    out = [f"{'#' * min(max(depth, 2), 4)} `{path}`\n"]
    usage = " ".join([path, *command.collect_usage_pieces(ctx)])
    out.append(f"```\n{usage}\n```\n")
    if command.help:
        # click's `\b` line (do not rewrap the next paragraph) means nothing here: dropped
        text = click.unstyle(command.help).replace("\b\n", "")
        out.append(html.escape(inspect.cleandoc(text), quote=False) + "\n")
    rows = []
    help_option = command.get_help_option(ctx)
    for param in command.get_params(ctx):
        if getattr(param, "hidden", False) or (ctx.parent and param is help_option):
            continue  # --help: said once, for villagelab
        info = param.to_info_dict()
        help_text = info.get("help") or ""
        if param.envvar:
            help_text += f" (environment: {param.envvar})"
        rows.append(
            (code(_option_name(param, ctx)), _type(param, info), _default(param, info), help_text)
        )
    if rows:
        out.append(table(["Option", "Takes", "Default", "Meaning"], rows))
    if isinstance(command, click.Group):
        subs = [
            (f"[`{path} {name}`](#{path.replace(' ', '-')}-{name})", sub.get_short_help_str(200))
            for name, sub in command.commands.items()
            if not sub.hidden
        ]
        out.append(table(["Command", "What it does"], subs))
    return "\n".join(out)


def commands_page(root: click.Command | None = None, name: str = "villagelab") -> str:
    """Every command and option of the command line, from its click definitions."""
    if root is None:
        from experiments.cli.main import cli

        root = cli
    top = click.Context(root, info_name=name, **root.context_settings)
    sections = [command_markdown(ctx, cmd) for ctx, cmd in _commands(root, top)]
    return (
        f"{GENERATED}# Commands\n\n"
        "Every command, its options, their defaults and help, as `--help` prints them "
        "(read from the command line's click definitions, `experiments/cli/`). "
        "How a command ends: [exit codes](exit-codes.md).\n\n" + "\n".join(sections)
    )


# --- metrics -------------------------------------------------------------------------------


def _bound(value: float) -> str:
    if math.isinf(value):
        return "∞" if value > 0 else "-∞"
    return f"{value:g}"


def scenario_metrics() -> dict[str, list[str]]:
    """The metrics each built-in scenario declares (scenarios/library/*.yaml `metrics:`)."""
    from scenarios.loader import LIBRARY

    declared = {}
    for path in sorted(LIBRARY.glob("*.yaml")):
        data = yaml.safe_load(path.read_text())
        declared[path.stem] = list(data.get("metrics") or [])
    return declared


def _read(table: str) -> str:
    """A table a metric reads, linked to its section of the traces page (`state:inventory`:
    the harness's rows of `state`)."""
    return f"[`{table}`](traces.md#{table.split(':')[0]})"


def metrics_page() -> str:
    """Every registered metric: definition, direction, range, its place in the default
    scorecard and the scenarios that declare it (a glance table, then a section each)."""
    from scorecards import METRICS, load_definition

    card = load_definition()
    declared = scenario_metrics()
    glance, sections = [], []
    for name in sorted(METRICS):
        m = METRICS[name]
        scored = name in card.metrics
        better = "↑ higher" if m.direction == "max" else "↓ lower"
        bounds = f"[{_bound(m.range[0])}, {_bound(m.range[1])}]"
        weight = f"{card.weight(name):g}" if scored else "not scored"
        glance.append((f"[`{name}`](#{name})", better, bounds, weight, m.definition))
        if not scored:
            scoring = "not in the default scorecard"
        else:
            held = "held by a promotion" if card.holds(name) else "traded by the objective"
            scoring = f"weight {weight}, tolerance {card.tolerance(name):g}, {held}"
        kind = (
            "internal diagnostic"
            if m.internal
            else "self-reported (what an agent says of itself; never weighed)"
            if m.self_reported
            else "observable"
        )
        by = ", ".join(code(s) for s, names in declared.items() if name in names) or "none"
        sections.append(
            f"### `{name}`\n\n{html.escape(m.definition, quote=False)}\n\n"
            f"- **Direction:** {better} is better ({m.direction})\n"
            f"- **Range:** {bounds}\n- **Default scorecard:** {scoring}\n- **Kind:** {kind}\n"
            f"- **Reads:** {', '.join(_read(t) for t in m.reads)}\n- **Declared by:** {by}\n"
        )
    guards = table(
        ["Metric", "Limit", "Scenarios"],
        (
            (
                f"[`{g.metric}`](#{g.metric})" + (f" ({g.key})" if g.key != g.metric else ""),
                f"{g.op} {g.limit:g}",
                ", ".join(g.scenarios) if g.scenarios else "every scenario",
            )
            for g in card.guardrails
        ),
    )
    by_scenario = table(
        ["Scenario", "Metrics it declares"],
        ((code(s), ", ".join(f"[{n}](#{n})" for n in names)) for s, names in declared.items()),
    )
    return (
        f"{GENERATED}# Metrics\n\n"
        "Every metric in the registry (`scorecards/metrics/`, one module each), with its weight, "
        "tolerance and whether a promotion holds it, as the default scorecard "
        "(`scorecards/default.yaml`) sets them, and the built-in scenarios that declare it "
        "(`scenarios/library/*.yaml`, `metrics:`): a metric a scenario does not declare is "
        "absent there. A weight of 0 is reported, not optimised.\n\n"
        + table(["Metric", "Better", "Range", "Weight", "Definition"], glance)
        + f"\n## Guardrails\n\nHard limits on a metric's worst per-scenario mean "
        f"(`scorecards/default.yaml`).\n\n{guards}\n## Metrics by scenario\n\n{by_scenario}"
        "\n## Every metric\n\n" + "\n".join(sections)
    )


# --- the policy surface --------------------------------------------------------------------


def _value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else f"{value:g}" if isinstance(value, float) else str(value)


def policy_file(name: str) -> dict[str, object]:
    """A shipped policy file, flattened to dotted names (family.parameter)."""
    import policies

    data = yaml.safe_load((Path(policies.__file__).with_name(name)).read_text()) or {}
    return {f"{f}.{k}": v for f, group in data.items() for k, v in (group or {}).items()}


def policy_page() -> str:
    """Every whitelisted parameter: type, allowed values, default, meaning, by family."""
    from policies.whitelist import WHITELIST

    baseline, careful = policy_file("baseline.yaml"), policy_file("careful.yaml")
    from scenarios.suite import SUITES, load_suite

    unscored = {name: load_suite(path).unscored for name, path in SUITES.items()}
    families: dict[str, list[Any]] = {}
    for p in WHITELIST:
        families.setdefault(p.family, []).append(p)
    sections = []
    for family, params in families.items():
        rows = []
        for p in params:
            notes = []
            if p.requires:
                notes.append(f"only while {p.requires} is on")
            roles = sorted(r.value for r in p.acts_for)
            notes.append("acts for " + " and ".join(roles))
            left = [suite for suite, names in unscored.items() if p.name in names]
            if left:  # suite.yaml `unscored:`: its agents read it, no metric of its moves
                # one clause per suite, so each suite's own sentence is there to find
                said = "; ".join(f"not searched on the {suite} suite" for suite in left)
                notes.append(f"{said} (nothing there scores it)")
            if p.fixes:
                notes.append(
                    "meant to fix: "
                    + ", ".join(f"{s.value} ({'raise' if up else 'lower'})" for s, up in p.fixes)
                )
            rows.append(
                (
                    code(p.name),
                    p.allowed(),
                    code(_value(p.default)),
                    " / ".join(
                        code(_value(shipped[p.name])) if p.name in shipped else "unset"
                        for shipped in (baseline, careful)
                    ),
                    f"{p.meaning}. {'; '.join(notes)}.",
                )
            )
        sections.append(
            f"## {family}\n\n"
            + table(["Parameter", "Allowed", "Default", "baseline / careful", "Meaning"], rows)
        )
    return (
        f"{GENERATED}# Policy surface\n\n"
        "Every parameter a policy file or a search may set (`policies/whitelist.py`); nothing "
        "else can be set. *Default* is what a parameter takes when a policy file leaves it out; "
        "*baseline* and *careful* are the shipped policies (`policies/baseline.yaml`, "
        "deliberately naive, and `policies/careful.yaml`, hand-tuned). A search of a suite "
        "samples only the parameters that act for its agents.\n\n" + "\n".join(sections)
    )


# --- the trace tables ----------------------------------------------------------------------


def _comments(source: str) -> tuple[dict[int, str], set[int]]:
    """Comments by line, and the lines that hold nothing but a comment."""
    found, alone = {}, set()
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            line = tok.start[0]
            found[line] = tok.string.lstrip("#").strip()
            if not tok.line[: tok.start[1]].strip():
                alone.add(line)
    return found, alone


def _above(line: int, found: dict[int, str], alone: set[int]) -> str:
    """The comment lines directly above `line`, joined."""
    lines = []
    while line - 1 in alone:
        line -= 1
        lines.insert(0, found[line])
    return " ".join(lines)


def schema_notes(source: str) -> tuple[dict[str, str], dict[tuple[str, str], str]]:
    """What the schema's comments say of each table (above its key) and of each column (at
    the end of its line, or above it), from the source of harness/engine/schema.py."""
    found, alone = _comments(source)
    tables: dict[str, str] = {}
    columns: dict[tuple[str, str], str] = {}
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.AnnAssign | ast.Assign) and isinstance(node.value, ast.Dict)):
            continue
        for key, value in zip(node.value.keys, node.value.values, strict=True):
            if not (isinstance(key, ast.Constant) and isinstance(value, ast.Call)):
                continue
            tables[key.value] = _above(key.lineno, found, alone)
            for arg in value.args:
                if isinstance(arg, ast.Call) and arg.args and isinstance(arg.args[0], ast.Constant):
                    end = arg.end_lineno or arg.lineno
                    note = found.get(end, "") if end not in alone else ""
                    columns[(key.value, arg.args[0].value)] = note or _above(
                        arg.lineno, found, alone
                    )
    return tables, columns


def traces_page() -> str:
    """Every trace table and its columns, from the Arrow schema and its comments."""
    from harness.engine import schema
    from harness.engine.declared import declaration
    from scorecards import METRICS

    source = Path(schema.__file__).read_text()
    about, notes = schema_notes(source)
    key = [f.name for f in schema.KEY]
    nullable = all(f.nullable for t in schema.TABLES.values() for f in t if f.name not in key)
    sections = []
    for name, table_schema in schema.TABLES.items():
        kind = (
            "Written by the agents about themselves (a diagnostic: never evidence)."
            if name in schema.AGENT_TABLES
            else "Written by the harness from what it saw."
        )
        rows = (
            (code(f.name), code(f.type), notes.get((name, f.name), ""))
            for f in table_schema
            if f.name not in key
        )
        description = about.get(name, "")
        if description:  # the schema's comment, as a sentence
            description = html.escape(description[0].upper() + description[1:], quote=False)
            description += " " if description.endswith(".") else ". "
        readers = [
            m for m in sorted(METRICS) if name in {t.split(":")[0] for t in METRICS[m].reads}
        ]
        read_by = ", ".join(f"[{m}](metrics.md#{m})" for m in readers) or "no metric"
        sections.append(
            f"## `{name}`\n\n{description}{kind} Read by: {read_by}.\n\n"
            + table(["Column", "Arrow type", "Note"], rows)
        )
    sections.append(
        "## Tables our agents declare\n\nAn agent may record tables of its own (its row types "
        "declare them: see Tables of its own in [Bringing your own agent](../agents.md)); these "
        "are the "
        "built-in agents', written only by the agent that declares them.\n"
    )
    for kind in _declaring_rows():
        declared = declaration(kind)
        comments = _field_notes(kind)
        rows = ((code(c), code(t.arrow()), comments.get(c, "")) for c, t in declared.columns)
        what = html.escape(" ".join((kind.__doc__ or "").split()), quote=False)
        readers = [m for m in sorted(METRICS) if declared.name in METRICS[m].reads]
        read_by = ", ".join(f"[{m}](metrics.md#{m})" for m in readers) or "no metric"
        sections.append(
            f"### `{declared.name}`\n\n{what} Declared by `{kind.__module__}.{kind.__name__}`: "
            f"written by the agents about themselves (a diagnostic: never evidence). Read by: "
            f"{read_by}.\n\n" + table(["Column", "Arrow type", "Note"], rows)
        )
    return (
        f"{GENERATED}# Trace tables\n\n"
        f"Schema version {schema.SCHEMA_VERSION} (`harness/engine/schema.py`): one Parquet file "
        "per table per episode. The core columns are fixed; a later version may add columns, "
        f"never rename or drop these. Every table starts with {', '.join(map(code, key))} "
        f"(never null), not repeated below{'; every other column may be null' if nullable else ''}"
        ".\n\n" + "\n".join(sections)
    )


def _declaring_rows() -> list[type]:
    """The row types of the tables our agents declare: the LLM agent's and the reference
    agent's."""
    from harness.agents.llm import LLMAgentFactory
    from harness.agents.reference import reference_agent

    return [*LLMAgentFactory.row_types, *reference_agent.row_types]  # type: ignore[attr-defined]


def _field_notes(kind: type) -> dict[str, str]:
    """A row type's fields' trailing comments, by field."""
    notes = {}
    for line in inspect.getsource(kind).splitlines():
        found = re.match(r"\s+(\w+): [^#]*#\s*(.+)$", line)
        if found:
            notes[found.group(1)] = html.escape(found.group(2), quote=False)
    return notes


# --- exit codes ----------------------------------------------------------------------------


def exit_codes_page() -> str:
    from experiments.cli.exits import EXIT_CODES

    rows = ((code(c), name, meaning) for c, (name, meaning) in sorted(EXIT_CODES.items()))
    return (
        f"{GENERATED}# Exit codes\n\n"
        "The same for every command (`experiments/cli/exits.py`).\n\n"
        + table(["Code", "Name", "When"], rows)
    )


PAGES: dict[str, Callable[[], str]] = {
    "commands.md": commands_page,
    "metrics.md": metrics_page,
    "policy-surface.md": policy_page,
    "traces.md": traces_page,
    "exit-codes.md": exit_codes_page,
}
"""The generated pages, by file name under reference/, in the order the nav lists them."""


def index_page() -> str:
    titles = {
        "commands.md": "Commands: every command and option, with defaults and help",
        "metrics.md": "Metrics: definition, direction, range, weight, the scenarios that "
        "declare each",
        "policy-surface.md": "Policy surface: every whitelisted parameter, its default and meaning",
        "traces.md": "Trace tables: every table and column of the Parquet traces",
        "exit-codes.md": "Exit codes",
    }
    items = "\n".join(f"- [{titles[p]}]({p})" for p in PAGES)
    return (
        f"{GENERATED}# Reference\n\nWritten from the code each time the site is built, so "
        f"it says what this checkout does.\n\n{items}\n"
    )
