"""The package's version, read from its installed metadata.

One source: labextension/package.json's "version", which pyproject.toml's ``[tool.hatch.version]``
(hatch-nodejs-version) gives the Python package too; no second copy to keep in step.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("z3sandbox-kernel")
except PackageNotFoundError:  # imported from a source tree that was never installed
    __version__ = "0+unknown"
