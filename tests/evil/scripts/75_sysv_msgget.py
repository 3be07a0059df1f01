# Tries: a SysV message queue (kernel memory outside RLIMIT_AS, in the IPC namespace: without one it
# is the host's and outlives the candidate), and a message on it.  Removed again if made.
# Must get: blocked (seccomp refuses msgget with EPERM).
# Process level: the queue is made (no seccomp there; SECURITY.md).
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
IPC_PRIVATE, IPC_CREAT, IPC_RMID = 0, 0o1000, 0
queue = libc.msgget(IPC_PRIVATE, IPC_CREAT | 0o600)
if queue < 0:
    e = ctypes.get_errno()
    raise OSError(e, os.strerror(e), "msgget")
message = ctypes.create_string_buffer(b"\x01\x00\x00\x00\x00\x00\x00\x00" + b"{{TOKEN}}")
sent = libc.msgsnd(queue, message, 16, 0)
libc.msgctl(queue, IPC_RMID, None)
print("ESCAPED: SysV message queue", queue, "made, msgsnd", sent)
