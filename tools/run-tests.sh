#!/usr/bin/env bash
# The whole test suite (the README's `make test`): the install (`make install`), lint, the docs site
# (`make docs`, warnings as errors), the labextension's unit tests, an install from an sdist with no
# node (tools/check-install.sh), every Python test (engine, layers, evil suite, Jupyter kernel,
# browser) and the notebooks under nbval.
# Run as root, it then runs the security-relevant suites again as an ordinary user with a home
# folder and a supplementary group (tools/run-unprivileged.sh), because root changes what rlimits,
# namespaces and ids do.  CI=true turns every missing dependency into a failure.  In a git
# checkout, the run (the install included) must leave `git status` as it found it: every output
# goes under test-output/ (gitignored).  The last lines list the steps that failed.
set -euo pipefail
exec </dev/null  # runs unattended: nothing may wait for an answer
cd "$(dirname "$0")/.."
VENV=${VENV:-.venv}
BIN=$VENV/bin
export PYTHONDONTWRITEBYTECODE=1
failed=()  # the names of the steps that failed, for the summary at the end
step() { current=$*; current_failed=false; printf '\n==> %s\n' "$*"; }
fail_step() { $current_failed || failed+=("$current"); current_failed=true; }
run() { "$@" || fail_step; }
summary() {
  printf '\n'
  if [ ${#failed[@]} = 0 ]; then
    echo "make test: every step passed"
    exit 0
  fi
  echo "make test: ${#failed[@]} step(s) failed (their output is above, after each '==>'):"
  printf '  - %s\n' "${failed[@]}"
  exit 1
}

# What `git status` shows (tracked and untracked files, and the content of local changes): a test
# run that rewrites a tracked file, or leaves an output that is not ignored, changes it.
checkout_state() {
  git status --porcelain --untracked-files=all && git diff HEAD --binary | sha1sum
}
in_git=false
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  in_git=true
  state_before=$(checkout_state)
fi

step "install: make install (npm ci: the lock is installed as it is)"
run make --no-print-directory install VENV="$VENV"
$current_failed && summary  # nothing else can run without the virtualenv

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

step "docs: make docs (Sphinx, warnings as errors, into test-output/docs)"
run make --no-print-directory docs VENV="$VENV"

if [ -f labextension/package.json ]; then
  step "labextension unit tests"
  run bash -c 'cd labextension && npm test --silent'
fi

step "install from an sdist without node (fresh virtualenv, npm off PATH)"
run bash tools/check-install.sh

ensure_chromium
step "Python tests as $(id -un)"
run "$BIN/python" -m pytest -p no:cacheprovider tests

step "notebooks under nbval"
run "$BIN/python" -m pytest -p no:cacheprovider --nbval notebooks \
  --nbval-kernel-name z3sandbox --nbval-sanitize-with notebooks/sanitize.cfg

if [ "$(id -u)" = 0 ]; then
  step "security suites again as an ordinary user (z3user: a home, a supplementary group)"
  run bash tools/run-unprivileged.sh
fi

if $in_git; then
  step "the test run left the checkout as it found it (git status, from before the install)"
  if [ "$(checkout_state)" != "$state_before" ]; then
    echo "the test run changed the checkout: write outputs under test-output/ (now: git status below)"
    git status --short --untracked-files=all
    fail_step
  fi
fi

summary
