#!/usr/bin/env bash
# Run the engine, layer and evil suites (or the pytest arguments given) as an ordinary user, the way most users run them: a login
# user with a home folder and a supplementary group, a copy of this checkout in that home, and a
# virtualenv there on Debian's system Python.  Needs root (useradd, setpriv).  Users are not root,
# and root changes what rlimits, namespaces and ids do, so the security suites run both ways.
#
# The user (z3user, or $Z3SANDBOX_TEST_USER) is made if missing, with the group z3group and a range
# in /etc/subgid; Debian's uidmap (newgidmap) is installed if missing: with it a candidate drops the
# user's supplementary groups (SECURITY.md).  Rerunning is safe: the user, the group and the
# virtualenv are kept (the virtualenv is rebuilt when pyproject.toml changes), the copy refreshed.
# This user replaces the earlier run as nobody: nobody is unprivileged too, but it has no home, no
# groups and ran from /tmp, so it never met what an ordinary user's candidates see and are.
set -euo pipefail
exec </dev/null  # nothing here asks: no prompt can wait for an answer
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-$(command -v /usr/bin/python3.11 || command -v python3)}
user=${Z3SANDBOX_TEST_USER:-z3user}
group=${Z3SANDBOX_TEST_GROUP:-z3group}
SUITES=(tests/host tests/zygote tests/child tests/evil tests/fidelity tests/trust)
[ "$(id -u)" = 0 ] || { echo "run-unprivileged: needs root (to add $user and run as it)" >&2; exit 1; }

getent group "$group" >/dev/null || groupadd "$group"
if ! id "$user" >/dev/null 2>&1; then
  useradd --create-home --shell /bin/bash --groups "$group" "$user"
fi
id -nG "$user" | tr ' ' '\n' | grep -qx "$group" || usermod --append --groups "$group" "$user"
if ! grep -q "^$user:" /etc/subgid; then  # useradd adds one where /etc/subgid exists; else here
  start=$(awk -F: 'BEGIN { end = 100000 } $2 + $3 > end { end = $2 + $3 } END { print end }' /etc/subgid)
  usermod --add-subgids "$start-$((start + 65535))" "$user"
fi
if ! [ -x /usr/bin/newgidmap ]; then
  echo "run-unprivileged: installing Debian's uidmap (newgidmap), so that candidates drop groups"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq uidmap >/dev/null
fi
home=$(getent passwd "$user" | cut -d: -f6)
uid=$(id -u "$user")
[ -d "$home" ] || install -d -m 755 -o "$user" -g "$(id -g "$user")" "$home"  # a user made without one

# The user's own groups (initgroups), no capabilities, a login-like environment; pip's settings
# and proxies pass through, for the user's virtualenv.
passed=()
while IFS= read -r -d '' var; do passed+=("$var"); done < <(
  env -0 | grep -zE '^(PIP_[A-Z_]*|https?_proxy|HTTPS?_PROXY|no_proxy|NO_PROXY)=' || true)
as_user() {
  setpriv --reuid="$uid" --regid="$(id -g "$user")" --init-groups --inh-caps=-all \
    env -i PATH=/usr/bin:/bin HOME="$home" USER="$user" LOGNAME="$user" LANG=C.UTF-8 \
    CI="${CI:-}" "${passed[@]}" "$@"
}

# The real Z3Py models beside the checkout (../shared/corpus/z3py, tests/fidelity/test_corpus.py), where
# they are if the user can read them there; else (a clone under /root) a copy in the user's home.
corpus=$(cd .. && pwd)/shared/corpus/z3py
if [ -f "$corpus/manifest.tsv" ] && ! as_user test -r "$corpus/manifest.tsv"; then
  echo "run-unprivileged: $user cannot read $corpus: using a copy in $home/corpus-z3py"
  rm -rf "$home/corpus-z3py" && cp -r "$corpus" "$home/corpus-z3py" && chown -R "$user:" "$home/corpus-z3py"
  corpus=$home/corpus-z3py
fi

# The checkout's tracked files (with their local changes) and the built labextension, copied into
# the user's home as a clone there would be; the virtualenv beside them.
copy=$home/z3sandbox-kernel
venv=$copy/.venv
rm -rf "$copy.new" && mkdir -p "$copy.new"
git ls-files -z | xargs -0 cp --parents -t "$copy.new"
if [ -d z3sandbox_kernel/labextension ]; then cp -r z3sandbox_kernel/labextension "$copy.new/z3sandbox_kernel/"; fi
[ -d "$venv" ] && mv "$venv" "$copy.new/.venv"
rm -rf "$copy" && mv "$copy.new" "$copy"
chown -R "$user:" "$copy"
cd "$copy"
extras="test,dask"  # what the suites import (make install adds docs, which they do not need)
stamp="$(sha1sum pyproject.toml | cut -c1-40) $extras"
if [ "$(cat "$venv/.installed" 2>/dev/null)" != "$stamp" ]; then
  rm -rf "$venv"
  as_user "$PYTHON" -m venv "$venv"
  # The labextension is already built and copied: no npm step for this copy.
  as_user env HATCH_JUPYTER_BUILDER_SKIP_NPM=1 "$venv/bin/python" -m pip install --quiet -e ".[$extras]"
  as_user sh -c 'echo "$1" >"$2"' - "$stamp" "$venv/.installed"
fi
# Arguments: pytest's (e.g. one test file); none: the security suites.
existing=("$@")
if [ $# = 0 ]; then
  for suite in "${SUITES[@]}"; do [ -d "$suite" ] && existing+=("$suite"); done
fi
echo "run-unprivileged: as $(as_user id), in $copy"
as_user env Z3SB_CORPUS="$corpus" "$venv/bin/python" -m pytest -p no:cacheprovider "${existing[@]}"
