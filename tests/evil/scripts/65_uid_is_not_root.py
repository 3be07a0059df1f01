# Tries: run as root inside the sandbox: print the ids, then setuid(0) and setgid(0) through libc.
# Must get: blocked or runtime_error: the calls fail (EPERM without a capability, EINVAL where 0 is
# not mapped in the candidate's user namespace; seccomp may refuse first); as root the
# candidate runs as the dedicated uid 2000000000, never as uid 0, so nothing root owns is its own.
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
if os.getuid() == 0 or os.geteuid() == 0:
    print("ESCAPED: running as uid 0")
print("ids", os.getuid(), os.getgid(), os.getgroups())
for name, call in (("setgid", lambda: libc.setgid(0)), ("setuid", lambda: libc.setuid(0))):
    if call() != 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e), name)
    if os.getuid() == 0:
        print("ESCAPED:", name, "to 0 went through")
