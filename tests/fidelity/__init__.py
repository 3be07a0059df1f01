"""Differential fidelity tests: a script prints in the sandbox what ``python script.py`` prints.

``SCRIPTS`` is the plain list of the suite's Z3Py scripts, for reuse (bench/ times them too);
``plain.run_plain`` runs one the way a user would in a terminal.
"""

from __future__ import annotations

from pathlib import Path

SCRIPTS: list[Path] = sorted((Path(__file__).resolve().parent / "scripts").glob("*.py"))
