"""What the layer tests share: a scratch folder for the sandboxed child (``run_sandboxed``)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def scratch(tmp_path: Path) -> str:
    """The child's scratch folder: a folder inside ``tmp_path``, so that a file beside it (in
    ``tmp_path``) is outside the scratch."""
    path = tmp_path / "scratch"
    path.mkdir()
    return str(path)
