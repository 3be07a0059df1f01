# Tries: a chain of folders 1,500 deep (names of 40 characters: 61,500 characters of path), with
# a file at the bottom and the rights taken away on the way up (where chmod is allowed: seccomp
# refuses it at the kernel level), to crash a recursive clean-up (RecursionError, ENAMETOOLONG)
# and leave scratch behind.
# Must get: no_check; the zygote and the host unharmed, and scratch gone after the run.
import os
top = os.getcwd()
for _ in range(1500):
    os.mkdir("d" * 40)
    os.chdir("d" * 40)
with open("bottom.txt", "w") as handle:
    handle.write("deep")
for _ in range(1500):
    os.chdir("..")
    try:
        os.chmod("d" * 40, 0o500)
    except PermissionError:
        pass
os.chdir(top)
print("chain of 1500 folders made")
