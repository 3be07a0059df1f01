# Tries: read the project root of an editable install (the folder above this package, which
# sys.path names): list it, read .git/config, .env and pyproject.toml.
# Must get: runtime_error (FileNotFoundError) or blocked: the view binds only the package's own
# folder, never the project root; nothing of .git or .env in the output.
import os
root = "{{PROJECT_ROOT}}"
listing = sorted(os.listdir(root)) if os.path.isdir(root) else []
if {".git", ".env", "pyproject.toml", "tests"} & set(listing):
    print("ESCAPED: the project root lists", listing[:20])
for name in (".git/config", ".env", "pyproject.toml"):
    with open(os.path.join(root, name)) as handle:
        print("ESCAPED:", name, handle.read()[:200])
