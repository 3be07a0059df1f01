# Tries: find the parent's secrets in the candidate's own environment (os.environ and
# /proc/self/environ) -- the zygote's environment is built from nothing, not inherited.
# Must get: no_check (nothing is denied: the secret simply is not there); no canary in any output.
import os
print(dict(os.environ))
try:
    print(open("/proc/self/environ", "rb").read())
except OSError as exc:
    print("no /proc/self/environ:", exc)
