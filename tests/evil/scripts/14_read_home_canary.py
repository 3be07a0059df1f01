# Tries: read a secret file in the user's real HOME (the path is known to the attacker), and
# show what HOME the sandbox gives (it must not be the user's).
# Must get: blocked (Landlock), and the canary never appears in any output.
import os
print("HOME is", os.path.expanduser("~"))
print("ESCAPED:", open("{{CANARY_FILE}}").read())
