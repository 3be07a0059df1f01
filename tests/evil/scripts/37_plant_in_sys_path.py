# Tries: create a module in every sys.path folder (site-packages, the stdlib, the package), the
# way a persistent implant would; new, uniquely named files only, so nothing real is broken.
# sys.path[0] is the script's own folder (as under `python script.py`), its scratch: not a target.
# Must get: blocked (Landlock and the read-only view; as a normal user the file modes refuse too).
import os, sys
errors = []
for folder in sys.path:
    if not folder or not os.path.isdir(folder) or os.path.samefile(folder, os.getcwd()):
        continue
    try:
        with open(os.path.join(folder, "z3sbevil_{{TOKEN}}.py"), "w") as f:
            f.write("print('PLANTED-{{TOKEN}}')\n")
        print("ESCAPED: planted in", folder)
    except OSError as exc:
        errors.append(exc)
if errors:
    raise errors[0]
