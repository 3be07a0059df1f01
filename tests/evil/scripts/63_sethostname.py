# Tries: change the hostname (libc sethostname, no audit hook), to the name it already has, so a
# call that goes through changes nothing but is the escape.
# Must get: blocked (EPERM: the candidate's UTS namespace belongs to the zygote's user namespace,
# where it holds no capability; seccomp may refuse first).  The host's hostname is unchanged.
import ctypes, os, socket
libc = ctypes.CDLL(None, use_errno=True)
name = socket.gethostname().encode()
if libc.sethostname(name, len(name)) == 0:
    print("ESCAPED: sethostname went through")
else:
    e = ctypes.get_errno()
    raise OSError(e, os.strerror(e), "sethostname")
