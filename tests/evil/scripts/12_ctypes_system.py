# Tries: libc's system() through ctypes, which no Python audit hook sees.
# Must get: blocked (seccomp refuses the clone; glibc then answers status 127 without a shell,
# and the script re-raises the errno the refused call left).  No file appears.
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
target = "{{WATCHED}}/ctypes_system.txt"
rc = libc.system(("echo ESCAPED > " + target).encode())
if os.path.exists(target):
    print("ESCAPED: system() ran a shell, status", rc)
else:
    e = ctypes.get_errno()
    raise OSError(e, os.strerror(e), "system")
