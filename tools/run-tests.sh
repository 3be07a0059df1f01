#!/usr/bin/env bash
# The whole test suite (the README's `make test`): lint, the labextension's unit tests, every Python
# test (engine, layers, evil suite, Jupyter kernel, browser) and the notebooks under nbval.  Run as
# root, it then runs the security-relevant suites again as an unprivileged user, because root changes
# what rlimits and namespaces do.  CI=true turns every missing dependency into a failure.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${VENV:-.venv}
BIN=$VENV/bin
export PYTHONDONTWRITEBYTECODE=1
status=0
step() { printf '\n==> %s\n' "$*"; }
run() { "$@" || status=1; }

ensure_chromium() {
  command -v chromium >/dev/null 2>&1 && return 0
  if [ "$(id -u)" = 0 ]; then
    step "installing Debian's chromium for the browser test"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "chromium is missing: the browser test will fail in CI (sudo apt-get install chromium)"
  fi
}

step "lint: ruff, mypy"
run "$BIN/ruff" check z3sandbox_kernel tests bench tools
run "$BIN/mypy"

if [ -f labextension/package.json ]; then
  step "labextension unit tests"
  run bash -c 'cd labextension && npm test --silent'
fi

ensure_chromium
step "Python tests as $(id -un)"
run "$BIN/python" -m pytest -p no:cacheprovider tests

step "notebooks under nbval"
run "$BIN/python" -m pytest -p no:cacheprovider --nbval notebooks \
  --nbval-kernel-name z3sandbox --nbval-sanitize-with notebooks/sanitize.cfg

if [ "$(id -u)" = 0 ]; then
  step "security suites again as an unprivileged user (nobody)"
  run bash tools/run-unprivileged.sh
fi
exit $status
