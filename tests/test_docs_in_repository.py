"""The documentation a user gets lives in the repository: the design in docs/, no reference
to files outside it, and every file the README and docs name exists."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from .conftest import ROOT

DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def links(text: str) -> list[str]:
    """The targets of a page's markdown links and images, anchors and addresses left out."""
    found = re.findall(r"\]\(([^)\s]+)\)", text)
    return [t.split("#")[0] for t in found if t.split("#")[0] and "://" not in t]


def generated_pages() -> set[Path]:
    """The reference pages the site writes as it builds (docs/reference/, never checked in):
    mkdocs.yml's nav lists them."""
    nav = yaml.safe_load((ROOT / "mkdocs.yml").read_text())["nav"]
    reference = next(item["Reference"] for item in nav if "Reference" in item)
    pages = [next(iter(p.values())) if isinstance(p, dict) else p for p in reference]
    return {(ROOT / "docs" / p).resolve() for p in pages if p.startswith("reference/")}


GENERATED = generated_pages()


def test_the_design_is_in_the_repository_and_the_readme_points_to_it():
    assert (ROOT / "docs" / "design.md").exists()
    assert "`docs/design.md`" in (ROOT / "README.md").read_text()


def test_no_document_refers_to_files_outside_the_repository():
    for doc in DOCS:
        text = doc.read_text()
        assert not re.search(r"`\.\./[A-Za-z]|\.\./shared", text), (
            f"{doc.name} points outside the repository"
        )
        # a page in docs/ links only to pages in docs/ (MkDocs builds nothing else); the
        # README may link into docs/
        home = ROOT / "docs" if doc.name != "README.md" else ROOT
        for target in links(text):
            resolved = (doc.parent / target).resolve()
            assert resolved.is_relative_to(home.resolve()), (doc.name, target)
            assert resolved.exists() or resolved in GENERATED, (doc.name, target)
        assert "DESIGN.md" not in text and "GLOSSARY.md" not in text, doc.name


def test_every_repository_path_the_documents_name_exists():
    named = set()
    for doc in DOCS:
        named |= set(
            re.findall(
                r"`((?:docs|policies|scenarios|scorecards|tests|experiments|"
                r"harness)/[\w./-]+\.(?:md|py|yaml|json))`",
                doc.read_text(),
            )
        )
    missing = sorted(path for path in named if not (ROOT / path).exists())
    assert not missing, missing


def test_the_scorecard_page_states_each_metrics_definition_as_implemented():
    from scorecards import METRICS, load_definition

    page = (ROOT / "docs" / "explanation" / "scorecard.md").read_text()
    definition = load_definition()
    for name in definition.metrics:
        m = METRICS[name]
        arrow = "↑" if m.direction == "max" else "↓"
        row = f"| `{name}` | {arrow} | {definition.weight(name):g} | {m.definition} |"
        assert row in page, name
