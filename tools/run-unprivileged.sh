#!/usr/bin/env bash
# Run the engine, layer and evil suites as nobody (65534).  Needs root (setpriv).  Users are not
# root, and root changes what rlimits and namespaces do, so the security suites run both ways.
# nobody cannot enter root's home: if this checkout or its virtualenv is out of reach, a copy of the
# tracked files and a virtualenv on Debian's system Python are made in a world-readable folder.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-$(command -v /usr/bin/python3.11 || command -v python3)}
VENV=${VENV:-.venv}
as_nobody() {
  setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
    env -i PATH=/usr/bin:/bin HOME=/tmp LANG=C.UTF-8 CI="${CI:-}" "$@"
}
SUITES=(tests/host tests/zygote tests/child tests/evil tests/fidelity)

here=$PWD
if as_nobody "$here/$VENV/bin/python" -c 'import z3sandbox_kernel' 2>/dev/null; then
  venv=$here/$VENV
else
  copy=/tmp/z3sandbox-unprivileged
  rm -rf "$copy" && mkdir -p "$copy/src"
  git ls-files -z | xargs -0 cp --parents -t "$copy/src"
  if [ -d z3sandbox_kernel/labextension ]; then cp -r z3sandbox_kernel/labextension "$copy/src/z3sandbox_kernel/"; fi
  "$PYTHON" -m venv "$copy/venv"
  # The labextension is already built and copied: no npm step for this copy.
  HATCH_JUPYTER_BUILDER_SKIP_NPM=1 "$copy/venv/bin/python" -m pip install --quiet -e "$copy/src[test]"
  chmod -R a+rX "$copy"
  venv=$copy/venv
  here=$copy/src
fi
cd "$here"
existing=()
for suite in "${SUITES[@]}"; do [ -d "$suite" ] && existing+=("$suite"); done
as_nobody "$venv/bin/python" -m pytest -p no:cacheprovider "${existing[@]}"
