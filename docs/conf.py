"""Sphinx configuration of the docs site (`make docs`: HTML into test-output/docs, warnings as errors).

The pages are MyST Markdown, as JupyterLab's own docs, with the PyData theme.  The source folder is
the repository's root (``sphinx-build -c docs . OUT``), so that the notebooks of notebooks/ are pages
where they are and every link between files reads the same on the site and on GitHub; only the
files ``include_patterns`` names are read.  The notebooks are rendered from their saved outputs
and never executed here: they are the tutorial and a test suite (nbval), and a build runs no
candidate.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from z3sandbox_kernel import __version__

ROOT = Path(__file__).resolve().parent.parent

project = "z3sandbox-kernel"
author = "z3sandbox-kernel developers"
copyright = "z3sandbox-kernel developers"
version = release = __version__

extensions = ["myst_nb", "sphinx.ext.autodoc"]

root_doc = "docs/index"
# SECURITY.md stays at the top (where GitHub shows it to whoever reports a hole) and is a page as it is.
include_patterns = ["docs/*.md", "notebooks/*.ipynb", "notebooks/README.md", "SECURITY.md"]
# Sphinx walks every folder it does not exclude: every top-level folder but the two it reads (a
# virtualenv, node_modules, test outputs), and the notebooks' data.
exclude_patterns = [path.name for path in ROOT.iterdir()
                    if path.is_dir() and path.name not in {"docs", "notebooks"}] + ["notebooks/data"]

# Saved outputs only: a docs build runs no candidate.
nb_execution_mode = "off"
# A run's output carries the labextension's own document (application/vnd.z3sandbox.run+json) beside
# its HTML and text: a static page shows the HTML, and myst-nb, which has no renderer for the document,
# would warn about it once per output.
suppress_warnings = ["mystnb.unknown_mime_type"]

myst_enable_extensions = ["colon_fence", "deflist"]
# Headings up to level 3 get anchors, so pages link to each other's sections (page.md#section).
myst_heading_anchors = 3

autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_class_signature = "separated"

html_theme = "pydata_sphinx_theme"
html_title = "z3sandbox-kernel"
html_theme_options = {"navigation_with_keys": False, "show_toc_level": 2}
html_show_sourcelink = False
html_copy_source = False
# Every page is a top-level entry but the tutorial's notebooks: only they get a section sidebar (an
# empty one would take a third of the page).
html_sidebars = {"docs/*": [], "docs/tutorial": ["sidebar-nav-bs"], "notebooks/*": ["sidebar-nav-bs"]}

REDIRECT = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><meta http-equiv="refresh" content="0; url=docs/index.html">
<title>z3sandbox-kernel</title></head>
<body><a href="docs/index.html">z3sandbox-kernel documentation</a></body></html>
"""


def write_redirect(app: Any, exception: Exception | None) -> None:
    """The home page is docs/index.html (the pages live in docs/): the output folder's own
    index.html leads there."""
    if exception is None and app.builder.name == "html":
        (Path(app.outdir) / "index.html").write_text(REDIRECT)


def setup(app: Any) -> None:
    app.connect("build-finished", write_redirect)
