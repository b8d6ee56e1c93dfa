"""Which agent a command runs: a registered name or an import path `module:Factory`.

Names come from the built-in agents and from the `villagelab.agents` entry-point group, so an
installed package can register its own. What travels to a Ray worker is the import path; the
worker imports it itself. The agent's code is hashed (`agent_hash`) so that a study, a resumed
run or a gate never mixes agents. Mistakes are the user's input errors (exit 2): an unknown
name, a path that does not import, a class missing a contract method.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import sys
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

from harness.engine import boundary, plugins
from harness.engine.contract import CONTRACT_METHODS, AgentSetup
from policies import Param, Policy, PromptFamily, Surface, load_policy
from policies import declared as declared_surface
from villagelab.yamlsource import InputError

GROUP = "villagelab.agents"
BUILTIN: dict[str, str] = {
    "reference": "harness.agents.reference:reference_agent",
    "simple": "harness.agents.simple:SimpleAgent",
}
# built-in agents that need options before they can run (the LLM agent: --llm-config FILE)
CONFIGURED: dict[str, str] = {"llm": "harness.agents.llm:llm_agent"}
OURS = ("harness", "policies", "scenarios", "scorecards", "experiments")


def registered() -> dict[str, str]:
    """Every agent name → its import path: the built-in ones, then installed packages' (a
    package cannot take a built-in name)."""
    names = {**BUILTIN, **CONFIGURED}
    for ep in sorted(importlib.metadata.entry_points(group=GROUP), key=lambda e: e.name):
        names.setdefault(ep.name, ep.value)
    return names


def describe() -> str:
    """For --help: the registered names and the other way to name an agent."""
    return f"{' | '.join(registered())} | module:Factory"


@dataclass(frozen=True)
class AgentChoice:
    """An agent as chosen: the name given, its import path and the hash of its code (and of
    what in its options decides its behaviour, e.g. the LLM agent's model). `options` travel
    with the path to the workers (`ref`); records name the agent by `path` alone."""

    name: str
    path: str
    hash: str
    options: dict[str, Any] | None = field(default=None, compare=False, repr=False)
    # the whitelisted parameters its agents read: what a search may change for it (its own
    # parameters included)
    surface: tuple[str, ...] = field(default=(), compare=False, repr=False)
    declared: bool = field(default=False, compare=False, repr=False)
    # parameters of its own it declares (`policies.Param` in its `policy_surface`)
    own: tuple[Param, ...] = field(default=(), compare=False, repr=False)
    # what its factory says of its options for the run's records (the LLM agent: its model)
    facts: dict[str, str] = field(default_factory=dict, compare=False, repr=False)
    # each variant file of the prompt families it declares, by name: its digest
    prompts: dict[str, str] = field(default_factory=dict, compare=False, repr=False)

    @property
    def policy_surface(self) -> Surface:
        """What a policy for this agent may set: the built-in whitelist and its own
        parameters."""
        return declared_surface(self.own, f"--agent {self.name!r}")

    def load_policy(self, path: str | Path) -> Policy:
        """A policy file for this agent, validated against its surface."""
        return load_policy(path, self.policy_surface)

    @property
    def ref(self) -> str:
        """What the workers load: the path, with the options if any."""
        return plugins.configured(self.path, self.options)

    def usage_metrics(self, usages: list[dict[str, float]]) -> dict[str, float]:
        """A trial's or a run's figures from its episodes' usage (what their rows declare
        summed): as the factory reports them (`usage_metrics(options, usages)`: the LLM agent
        prices its calls), or summed as `usage_*`. A plug-in's factory is not loaded here."""
        if not any(usages):
            return {}
        if not boundary.isolated(self.ref):
            report = getattr(plugins.load(self.path), "usage_metrics", None)
            if callable(report):
                return dict(report(self.options, usages))
        summed: dict[str, float] = {}
        for usage in usages:
            for key, value in usage.items():
                summed[f"usage_{key}"] = summed.get(f"usage_{key}", 0.0) + value
        return summed


def resolve(name_or_path: str, options: dict[str, Any] | None = None) -> AgentChoice:
    """The agent a command-line `--agent` names, checked before anything runs; `options`
    configure a factory that takes them (the LLM agent's `--llm-config`). A plug-in agent is
    imported and checked only on the agent's side of the process boundary (`boundary`): its
    code, import-time code included, never runs in this process."""
    names = registered()
    path = names.get(name_or_path, name_or_path)
    known = f"registered agents: {', '.join(names)}; or give an import path module:Factory"
    if not plugins.is_import_path(path):
        raise InputError(f"--agent {name_or_path!r}: no agent of that name ({known})")
    _importable_from_here()
    reference = plugins.configured(path, options)
    if boundary.isolated(reference):
        try:
            found = boundary.beside(reference, f"{__name__}:inspect", name_or_path, known)
        except boundary.AgentCrash as exc:
            raise InputError(f"--agent {name_or_path!r}: {path} could not be checked ({exc})")
    else:
        found = inspect(reference, name_or_path, known)
    if "error" in found:
        raise InputError(found["error"])
    surface = tuple(found["surface"])
    own = tuple(Param.from_json(p) for p in found["own"])
    declared = found["declared"]
    choice = AgentChoice(
        name_or_path,
        path,
        found["hash"],
        options,
        surface,
        declared,
        own,
        found["facts"],
        found["prompts"],
    )
    choice.policy_surface  # noqa: B018 - its own parameters are checked before anything runs
    return choice


def inspect(reference: str, name: str, known: str) -> dict[str, Any]:
    """What `resolve` needs to know of an agent factory, as plain data (it may be computed in
    an agent-side process): its code's hash, its policy surface, or the error that stops it."""
    path, options = plugins.split(reference)
    what = f"--agent {name!r}"
    try:
        factory = plugins.load(path)
    except plugins.PluginError as exc:
        return {"error": f"{what}: {exc} ({known})"}
    if not callable(factory):
        return {"error": f"{what}: {path} is not a factory (not callable)"}
    try:
        if isinstance(factory, type):
            missing(factory, f"{what}: the class {path}")
        digest = agent_hash(factory)
        identity = getattr(factory, "identity", None)
        if options and callable(identity):
            digest = hashlib.blake2b(
                f"{digest}/{identity(options)}".encode(), digest_size=12
            ).hexdigest()
        names_read, own, declared = policy_surface(factory, what)
        declared_surface(own, what)  # its own parameters, checked where they were declared
        facts = getattr(factory, "facts", None)
        told = {str(k): str(v) for k, v in facts(options).items()} if options and facts else {}
        row_tables(factory, what)
    except InputError as exc:
        return {"error": str(exc)}
    return {
        "hash": digest,
        "surface": list(names_read),
        "own": [p.to_json() for p in own],
        "declared": declared,
        "facts": told,
        "prompts": prompt_digests(factory),
    }


def row_tables(factory: Any, what: str) -> tuple[str, ...]:
    """The tables of its own an agent factory declares (`row_types`), checked as the episode
    will use them: each a registered row type of plain fields (InputError otherwise)."""
    from harness.engine.declared import declarations_of
    from harness.engine.diagnostics import row_types

    kinds = getattr(factory, "row_types", ())
    if isinstance(kinds, type) or not all(isinstance(k, type) for k in kinds):
        raise InputError(f"{what}: row_types must be a tuple of row types (dataclasses)")
    unregistered = [k.__qualname__ for k in kinds if k not in row_types()]
    if unregistered:
        raise InputError(
            f"{what}: row_types: {', '.join(unregistered)} not registered; decorate each "
            "with harness.engine.diagnostics.diagnostic_row"
        )
    try:
        return tuple(d.name for d in declarations_of(factory))
    except TypeError as exc:
        raise InputError(f"{what}: row_types: {exc}") from None


def policy_surface(factory: Any, what: str) -> tuple[tuple[str, ...], tuple[Param, ...], bool]:
    """The parameters an agent factory's agents read - the whitelisted ones, in whitelist
    order, then its own - its own parameters, and whether the factory declared them. A
    factory declares them as `policy_surface`: whitelisted names or families ("sharing" for
    every sharing.* one), and `policies.Param` records of its own. One that declares nothing
    may read any whitelisted one, so its surface is the whole whitelist."""
    from policies.whitelist import WHITELIST

    declared = getattr(factory, "policy_surface", None)
    if declared is None:
        return tuple(p.name for p in WHITELIST), (), False
    kinds = (str, Param, PromptFamily)
    if isinstance(declared, str) or not all(isinstance(d, kinds) for d in declared):
        raise InputError(
            f"{what}: policy_surface must be a tuple of parameter names, families, and "
            "policies.Param and policies.PromptFamily records of its own"
        )
    own = tuple(
        d.param(what) if isinstance(d, PromptFamily) else d
        for d in declared
        if isinstance(d, (Param, PromptFamily))
    )
    families = {p.name.split(".", 1)[0] for p in WHITELIST}
    names = {p.name for p in WHITELIST}
    unknown = sorted(
        d for d in declared if isinstance(d, str) and d not in names and d not in families
    )
    if unknown:
        raise InputError(
            f"{what}: policy_surface names {', '.join(map(repr, unknown))}, not on the whitelist "
            "(see 'villagelab policy show'); a parameter of its own is declared as a "
            "policies.Param"
        )
    wanted = {d for d in declared if isinstance(d, str)}
    builtin = tuple(
        p.name for p in WHITELIST if p.name in wanted or p.name.split(".", 1)[0] in wanted
    )
    return (*builtin, *(p.name for p in own)), own, True


def missing(obj: Any, what: str) -> None:
    """InputError naming the contract methods `obj` (a class or an agent) lacks, if any."""
    absent = [m for m in CONTRACT_METHODS if not callable(getattr(obj, m, None))]
    if absent:
        raise InputError(
            f"{what} lacks the contract method{'s' if len(absent) > 1 else ''} "
            f"{', '.join(absent)}; an agent offers {', '.join(CONTRACT_METHODS)} "
            "(harness.engine.contract.Agent)"
        )


def check_made(choice: AgentChoice, setup: AgentSetup) -> None:
    """Make one agent from `setup` and check it keeps the contract (for factories that are
    functions, whose agents can only be seen once made). Before any episode runs; a plug-in
    is made on its side of the process boundary, as its episodes will make it."""
    if boundary.isolated(choice.ref):
        try:
            problem = boundary.beside(choice.ref, f"{__name__}:made", choice.name, setup)
        except boundary.AgentCrash as exc:
            problem = f"--agent {choice.name!r}: {choice.path} could not make an agent ({exc})"
    else:
        problem = made(choice.ref, choice.name, setup)
    if problem is not None:
        raise InputError(problem)


def made(reference: str, name: str, setup: AgentSetup) -> str | None:
    """What is wrong with the agent the factory makes from `setup` (None: nothing)."""
    path, _ = plugins.split(reference)
    try:
        agent = plugins.load(reference)(setup)
    except Exception as exc:  # noqa: BLE001 - the user's factory failing is the user's input error
        return (
            f"--agent {name!r}: {path} could not make an agent for {setup.name!r} "
            f"({type(exc).__name__}: {exc})"
        )
    try:
        missing(agent, f"--agent {name!r}: the agent {path} makes")
    except InputError as exc:
        return str(exc)
    return None


def _importable_from_here() -> None:
    """`module:Factory` may name a module in the current folder, as `python -m` would find it
    (the console script's own folder is on the path instead)."""
    here = os.getcwd()
    if here not in sys.path:
        sys.path.append(here)


@cache
def agent_hash(factory: Any) -> str:
    """A digest of the agent's code: the source files of the package its factory comes from
    (for an agent inside these five packages, its own module or subpackage only)."""
    module = sys.modules[factory.__module__]
    files = sorted(_code_files(module), key=lambda p: p[0])
    # files besides code that decide what the agent does (the LLM agent's prompt templates)
    files += list(getattr(factory, "hashed_files", ()))  # (name, path) pairs
    files += _prompt_files(factory)  # a changed prompt is a changed agent
    h = hashlib.blake2b(digest_size=12)
    for rel, path in files:
        h.update(rel.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def prompt_digests(factory: Any) -> dict[str, str]:
    """Each variant file of the prompt families an agent declares (family/variant.txt), and
    each file it hashes beside its code (the LLM agent's templates): its digest, so that a
    gate can say which prompt changed since its baseline."""
    files = [*_prompt_files(factory), *getattr(factory, "hashed_files", ())]
    return {
        rel: hashlib.blake2b(Path(path).read_bytes(), digest_size=8).hexdigest()
        for rel, path in files
    }


def _prompt_files(factory: Any) -> list[tuple[str, Path]]:
    declared = getattr(factory, "policy_surface", None) or ()
    if isinstance(declared, str):
        return []
    return [f for entry in declared if isinstance(entry, PromptFamily) for f in entry.hashed()]


def _code_files(module: ModuleType) -> list[tuple[str, Path]]:
    top = module.__name__.split(".")[0]
    if top in OURS:
        unit = module  # our agents sit beside each other in one package: hash only this one
    else:
        unit = sys.modules.get(top, module)
    source = Path(unit.__file__ or "")
    if hasattr(unit, "__path__"):  # a package: every source file under it
        root = source.parent
        return [(p.relative_to(root.parent).as_posix(), p) for p in root.rglob("*.py")]
    return [(source.name, source)]
