# Tries: create a module in every sys.path folder (site-packages, the stdlib, the package), the
# way a persistent implant would; new, uniquely named files only, so nothing real is broken.
# Must get: blocked (Landlock: read-only; as a normal user the file modes refuse too).
import os, sys
errors = []
for folder in sys.path:
    if not folder or not os.path.isdir(folder):
        continue
    try:
        with open(os.path.join(folder, "z3sbevil_{{TOKEN}}.py"), "w") as f:
            f.write("print('PLANTED-{{TOKEN}}')\n")
        print("ESCAPED: planted in", folder)
    except OSError as exc:
        errors.append(exc)
if errors:
    raise errors[0]
