# Tries: plant libz3.so, z3.py, json.py and sitecustomize.py in the working directory, each
# announcing itself when loaded, so that the *next* candidate loads them.
# Must get: no_check for itself; the next candidate never says PLANTED, and cannot even see
# this scratch folder any more (the test checks both).
import os
code = "print('PLANTED-{{TOKEN}}', __name__)\n"
for name in ("z3.py", "json.py", "sitecustomize.py", "usercustomize.py"):
    with open(name, "w") as f:
        f.write(code)
with open("libz3.so", "wb") as f:
    f.write(b"\x7fELF not really")
print("planted in", os.getcwd())
