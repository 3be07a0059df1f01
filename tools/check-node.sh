#!/usr/bin/env bash
# Before `make install` (an editable install builds the JupyterLab extension from its source): is
# there a node recent enough, with npm, and do both run?  Says what to install instead of pip's
# long traceback, or make's bare "Error 1".  The range is labextension/package.json's "engines".
set -uo pipefail  # not -e: a node that fails to run must reach the message below
need="Node.js 20.19+ or 22.12+ with npm"
how="Debian 12's nodejs package is 18, too old: install one from https://nodejs.org/en/download
(or NodeSource's packages, or nvm: nvm install 22), then rerun.  No node at hand: build a wheel
where node is (python -m build) and pip install it here: a wheel needs no node (docs/install.md)."
fail() { printf 'make install needs %s to build the JupyterLab extension: %s.\n%s\n' "$need" "$1" "$how" >&2; exit 1; }
# The first line of what a command said when it failed, for the message.
said() { local first=${1%%$'\n'*}; printf '%s' "${first:0:200}"; }

command -v node >/dev/null 2>&1 || fail "node is not on PATH"
node=$(command -v node)
if ! version=$(node --version 2>&1) || [[ ! $version =~ ^v[0-9]+\.[0-9]+ ]]; then
  fail "the node on PATH ($node) does not run: 'node --version' said: $(said "$version")"
fi
command -v npm >/dev/null 2>&1 || fail "npm is not on PATH (node is $version)"
if ! npm_version=$(npm --version 2>&1) || [[ ! $npm_version =~ ^[0-9]+\. ]]; then
  fail "the npm on PATH ($(command -v npm)) does not run: 'npm --version' said: $(said "$npm_version")"
fi
IFS=. read -r major minor _ <<<"${version#v}"
if ! { [ "$major" -eq 20 ] && [ "$minor" -ge 19 ]; } && ! { [ "$major" -eq 22 ] && [ "$minor" -ge 12 ]; } &&
  ! [ "$major" -gt 22 ]; then
  fail "this node is $version"
fi
