"""mkdocs-gen-files script (mkdocs.yml): the reference pages, written into the build from the
code (docs/hooks/reference.py), never into docs/."""

from __future__ import annotations

import sys
from pathlib import Path

import mkdocs_gen_files

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parents[1]), str(HERE)]  # the checkout's packages, and reference.py

import reference  # found through the path just set

with mkdocs_gen_files.open("reference/index.md", "w") as page:
    page.write(reference.index_page())
for name, make in reference.PAGES.items():
    with mkdocs_gen_files.open(f"reference/{name}", "w") as page:
        page.write(make())
