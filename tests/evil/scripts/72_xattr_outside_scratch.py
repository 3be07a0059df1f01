# Tries: set and remove extended attributes of a file outside scratch through libc (setxattr,
# lsetxattr, removexattr, lremovexattr, and setxattrat of Linux 6.13 by number), which Landlock
# cannot refuse; an attribute that gets set is removed again.
# Must get: blocked (seccomp refuses the xattr-writing calls with EPERM, the *at forms too).
# Process level: the calls go through (no seccomp there; SECURITY.md).
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
AT_FDCWD, SETXATTRAT = -100, 463  # the same number on every architecture


class XattrArgs(ctypes.Structure):
    _fields_ = (("value", ctypes.c_uint64), ("size", ctypes.c_uint32), ("flags", ctypes.c_uint32))


target, name, value = b"{{CANARY_FILE}}", b"user.z3sbevil", b"{{TOKEN}}"
buffer = ctypes.create_string_buffer(value)
args = XattrArgs(ctypes.addressof(buffer), len(value), 0)
attempts = {
    "setxattr": lambda: libc.setxattr(target, name, value, len(value), 0),
    "lsetxattr": lambda: libc.lsetxattr(target, name, value, len(value), 0),
    "setxattrat": lambda: libc.syscall(SETXATTRAT, ctypes.c_long(AT_FDCWD), target, 0, name,
                                       ctypes.byref(args), ctypes.sizeof(args)),
    "removexattr": lambda: libc.removexattr(target, name),
    "lremovexattr": lambda: libc.lremovexattr(target, name),
}
errors = []
for call_name, call in attempts.items():
    if call() == 0:
        print("ESCAPED:", call_name, "went through")
    else:
        e = ctypes.get_errno()
        if e != 61:  # ENODATA: removing what is not there reached the file system all the same
            errors.append(OSError(e, os.strerror(e), call_name))
        else:
            print("ESCAPED:", call_name, "reached the file system")
libc.removexattr(target, name)
if errors:
    raise errors[0]
