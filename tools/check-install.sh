#!/usr/bin/env bash
# Install as a Python user does, with no node: build the sdist from this checkout and a wheel from
# that sdist (python -m build), install the wheel with the [lab] extra into a fresh virtualenv, all
# with node and npm off PATH; then check that Jupyter lists the kernel and the labextension (enabled,
# at the package's version), that `z3sandbox run` works from that virtualenv, and that the fidelity
# suite passes against that regular install.
# A step of `make test` (tools/run-tests.sh).  Needs the labextension built once (`make install`
# builds it); pip's cache makes a rerun quick.  Everything goes under test-output/install-check; the
# virtualenv is removed after a successful check.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-$(command -v /usr/bin/python3.11 || command -v python3)}
root=$PWD
work=$root/test-output/install-check
fail() { echo "check-install: $*" >&2; exit 1; }

[ -f z3sandbox_kernel/labextension/static/style.js ] ||
  fail "the labextension is not built (make install builds it, with npm)"
rm -rf "$work" && mkdir -p "$work/path" "$work/try"

# A PATH of everything in the system's bin folders but node and its package managers.
for dir in /usr/local/bin /usr/bin /bin; do
  for tool in "$dir"/*; do
    name=${tool##*/}
    case $name in node | nodejs | npm | npx | corepack | yarn | jlpm) continue ;; esac
    [ -e "$work/path/$name" ] || ln -s "$tool" "$work/path/$name"
  done
done
export PATH=$work/path
if command -v npm >/dev/null || command -v node >/dev/null; then fail "npm or node is still on PATH"; fi

"$PYTHON" -m venv "$work/venv"
bin=$work/venv/bin
"$bin/python" -m pip install --quiet build
# No arguments: the sdist from the checkout, then the wheel from the sdist (as pip would build it).
"$bin/python" -m build --outdir "$work/dist" . >"$work/build.log" 2>&1 ||
  { tail -30 "$work/build.log"; fail "python -m build failed without npm (log: $work/build.log)"; }
sdist=$(ls "$work"/dist/*.tar.gz)
wheel=$(ls "$work"/dist/*.whl)
tar -tzf "$sdist" >"$work/sdist-files.txt"
grep -q '/z3sandbox_kernel/labextension/static/style.js$' "$work/sdist-files.txt" ||
  fail "the sdist does not ship the built labextension"
# HATCH_JUPYTER_BUILDER_SKIP_NPM=1 works too (pip builds the wheel from the sdist without npm).
HATCH_JUPYTER_BUILDER_SKIP_NPM=1 "$bin/python" -m pip wheel --quiet --no-deps -w "$work/dist-skip" "$sdist" ||
  fail "pip wheel with HATCH_JUPYTER_BUILDER_SKIP_NPM=1 failed"
"$bin/python" -c 'import sys, zipfile; sys.exit("z3sandbox_kernel/py.typed" not in zipfile.ZipFile(sys.argv[1]).namelist())' "$wheel" ||
  fail "the wheel ships no z3sandbox_kernel/py.typed: users' type checkers would not see the API"
"$bin/python" -m pip install --quiet "$wheel[lab]"

cd "$work/try"  # away from the checkout: the installed package, not the source tree, is imported
version=$("$bin/python" -c 'import json; print(json.load(open("'"$root"'/labextension/package.json"))["version"])')
"$bin/python" -c 'import z3sandbox_kernel, sys; sys.exit(z3sandbox_kernel.__file__.startswith(sys.prefix) is False)' ||
  fail "z3sandbox_kernel is not imported from the fresh virtualenv"
"$bin/jupyter" kernelspec list | tee kernelspecs.txt
grep -Eq "^ *z3sandbox +$work/venv/share/jupyter/kernels/z3sandbox$" kernelspecs.txt ||
  fail "jupyter kernelspec list does not show the z3sandbox kernel of the fresh virtualenv"
"$bin/jupyter" labextension list >labextensions.txt 2>&1
cat labextensions.txt
grep -Eq "z3sandbox-kernel v$version .*enabled.*OK" labextensions.txt ||
  fail "jupyter labextension list does not show z3sandbox-kernel v$version enabled and OK"
printf "x = Int('x')\ns.add(x > 1)\n" >candidate.py
"$bin/z3sandbox" run --json candidate.py >run.json
"$bin/python" -c 'import json, sys; r = json.loads(open("run.json").readline()); print("z3sandbox run:", r["verdict"], r["model"]); sys.exit(r["verdict"] != "sat")' ||
  fail "z3sandbox run from the fresh virtualenv did not give sat"
# The fidelity suite and what a candidate sees, against this regular install (make test's other
# stages use the editable one): pytest appends the checkout to sys.path, after site-packages, so the
# tests import the installed package (checked first) and only the tests themselves from the checkout.
"$bin/python" -c 'import sys, z3sandbox_kernel.contracts.readable as r; sys.exit(r.project_root() is not None)' ||
  fail "the fresh virtualenv's z3sandbox_kernel is not a regular install"
"$bin/python" -m pip install --quiet pytest pytest-timeout hypothesis
corpus=$(cd "$root/.." && pwd)/shared/corpus/z3py
Z3SB_CORPUS=$corpus "$bin/python" -m pytest -p no:cacheprovider --import-mode=append --rootdir "$root" \
  -c "$root/pyproject.toml" -q "$root/tests/fidelity" "$root/tests/host/test_what_a_candidate_sees.py" ||
  fail "the fidelity suite failed against the regular install"
cd "$root"
rm -rf "$work/venv" "$work/path"  # 340 MB; the logs and listings stay for reading
echo "check-install: installed without node: the kernel, the labextension (v$version) and the CLI work"
