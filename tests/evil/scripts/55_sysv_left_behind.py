# Tries: leave SysV IPC objects behind: a shared-memory segment, a message queue and a semaphore
# set, each made and never removed (ctypes: no audit hook).
# Must get: blocked where seccomp refuses the calls; and whatever it made dies with its IPC
# namespace: /proc/sysvipc of the host shows no new object after the run (world.py checks).
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
IPC_PRIVATE, IPC_CREAT = 0, 0o1000
made, errors = [], []
for name, call in (("shmget", lambda: libc.shmget(IPC_PRIVATE, ctypes.c_size_t(1 << 20), IPC_CREAT | 0o666)),
                   ("msgget", lambda: libc.msgget(IPC_PRIVATE, IPC_CREAT | 0o666)),
                   ("semget", lambda: libc.semget(IPC_PRIVATE, 4, IPC_CREAT | 0o666))):
    ident = call()
    if ident >= 0:
        made.append(name)
    else:
        e = ctypes.get_errno()
        errors.append(OSError(e, os.strerror(e), name))
print("made", made)
if errors:
    raise errors[0]
