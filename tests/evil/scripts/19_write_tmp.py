# Tries: leave a file in /tmp.
# Must get: blocked (Landlock; for a normal user here /tmp may also be closed by its mode).
with open("/tmp/z3sbevil-{{TOKEN}}", "w") as f:
    f.write("ESCAPED {{TOKEN}}")
print("ESCAPED: wrote /tmp")
