# Tries: run a shell command with os.system.
# Must get: blocked (audit hook: os.system; seccomp would refuse the fork and the exec).
import os
os.system("echo ESCAPED: shell ran > {{WATCHED}}/os_system.txt")
print("ESCAPED: os.system returned")
