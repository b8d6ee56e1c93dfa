"""A prompt family an agent declares: a folder of variant files beside its module, each using
the placeholders the family names. On the policy surface it is one categorical parameter (its
variants by file name), so a search selects a variant and never edits one; every file counts
as the agent's code (its hash), so a changed prompt file is a changed agent."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from string import Template

from villagelab.yamlsource import InputError

from .param import Param
from .purposes import EVERYONE


@dataclass(frozen=True)
class PromptFamily:
    """`name` is the parameter that selects the variant (family.parameter, in a family of the
    agent's own); `folder` holds one `<variant>.txt` each, relative to the agent's module
    (`anchor`: that module's `__file__`) or absolute."""

    name: str
    folder: str
    placeholders: tuple[str, ...]
    default: str
    meaning: str
    anchor: str = ""  # the declaring module's file: pass __file__

    @property
    def root(self) -> Path:
        path = Path(self.folder)
        return path if path.is_absolute() else Path(self.anchor).parent / path

    def files(self) -> list[Path]:
        return sorted(self.root.glob("*.txt"))

    def variants(self) -> tuple[str, ...]:
        return tuple(p.stem for p in self.files())

    def template(self, variant: str) -> str:
        """The variant's text (as the agent fills it with `string.Template`)."""
        return (self.root / f"{variant}.txt").read_text()

    def param(self, agent: str) -> Param:
        """Its parameter on the surface, once its folder and every variant are checked: the
        folder holds variants, the default is one of them, each uses every placeholder and
        no other."""
        found = self.variants()
        if not found:
            raise InputError(
                f"{agent}: prompt family {self.name!r}: no <variant>.txt in {self.root}"
            )
        if self.default not in found:
            raise InputError(
                f"{agent}: prompt family {self.name!r}: default {self.default!r} is not a "
                f"variant; expected one of {', '.join(found)}"
            )
        for path in self.files():
            text = Template(path.read_text())
            if not text.is_valid():
                raise InputError(
                    f"{path}: prompt family {self.name!r} variant {path.stem!r}: a $ that "
                    "starts no placeholder; expected $name, ${name} or $$ for a dollar sign"
                )
            used = set(text.get_identifiers())
            lacking = [p for p in self.placeholders if p not in used]
            unknown = sorted(used - set(self.placeholders))
            if lacking or unknown:
                wrong = (
                    f"does not use {', '.join('$' + p for p in lacking)}"
                    if lacking
                    else f"uses {', '.join('$' + p for p in unknown)}, which it is not given"
                )
                raise InputError(
                    f"{path}: prompt family {self.name!r} variant {path.stem!r} {wrong}; "
                    f"expected every one of {', '.join('$' + p for p in self.placeholders)} "
                    "and no other"
                )
        return Param(
            self.name, "categorical", self.default, self.meaning, choices=found, acts_for=EVERYONE
        )

    def hashed(self) -> list[tuple[str, Path]]:
        """(name, path) of each variant file, for the agent's hash."""
        return [(f"{self.name}/{p.name}", p) for p in self.files()]
