# Tries: unshare a new user+mount namespace and mount a tmpfs over /tmp (ctypes, no audit hook).
# Must get: blocked (seccomp refuses unshare and mount).
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
errors = []
if libc.unshare(0x10000000 | 0x00020000) == 0:
    print("ESCAPED: unshare worked")
else:
    errors.append(ctypes.get_errno())
if libc.mount(b"none", b"/tmp", b"tmpfs", 0, None) == 0:
    print("ESCAPED: mount worked")
else:
    errors.append(ctypes.get_errno())
e = errors[0]
raise OSError(e, os.strerror(e), "unshare/mount")
