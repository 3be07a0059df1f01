#!/usr/bin/env bash
# How long a new user waits for the first verdict: clone this checkout (its last commit) into a
# fresh folder, run `make demo` there as the README says, and print the seconds from the clone to
# the first verdict and to the end of `make demo`, with the load average (the figures depend on it).
# --cold gives `make demo` a fresh HOME as well (no pip or npm cache, as in a new container): the
# first-time figure; without it the machine's caches are used.  The folder is removed at the end.
# Usage: bash tools/first-verdict.sh [--cold]
set -euo pipefail
cd "$(dirname "$0")/.."
cold=false
if [ "${1:-}" = --cold ]; then cold=true; fi
work=$(mktemp -d "${TMPDIR:-/tmp}/z3sandbox-first-verdict.XXXXXX")
trap 'rm -rf "$work"' EXIT
log=$work/make-demo.log
load=$(cut -d' ' -f1-3 /proc/loadavg)
start=$EPOCHREALTIME
since() { awk -v now="$EPOCHREALTIME" -v start="$start" 'BEGIN { printf "%.1f", now - start }'; }
git clone --quiet --no-hardlinks "$PWD" "$work/clone"
home=$HOME
if $cold; then home=$work/home && mkdir "$home"; fi
# Each line of make demo's output, with the seconds since the clone began.
set +e
( cd "$work/clone" && HOME=$home make demo 2>&1 ) | while IFS= read -r line; do
  printf '%7s  %s\n' "$(since)" "$line"
done | tee "$log"
status=${PIPESTATUS[0]}
set -e
first=$(grep -m1 -E '^ *[0-9.]+  RunResult: ' "$log" | awk '{print $1}')
printf '\nclone to first verdict: %s s; clone to the end of make demo: %s s (%s caches; load average %s before)\n' \
  "${first:-none}" "$(since)" "$($cold && echo cold || echo warm)" "$load"
exit "$status"
