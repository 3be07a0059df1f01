# Tries: append a command to ~/.bashrc of the user's real HOME (path known to the attacker).
# Must get: blocked (Landlock: only scratch is writable); the file is unchanged.
with open("{{HOME}}/.bashrc", "a") as f:
    f.write("echo ESCAPED-{{TOKEN}}\n")
print("ESCAPED: appended to .bashrc")
