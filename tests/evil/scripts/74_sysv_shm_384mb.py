# Tries: hold 384 MB with memory_mb=64 in SysV shared memory (24 segments of 16 MB, each attached,
# touched and detached: the pages stay with the segment, outside RLIMIT_AS, and would outlive the
# candidate).  Segments that were made are removed again, so a run that escapes leaves nothing.
# Must get: blocked (seccomp refuses shmget with EPERM, whether or not there is an IPC namespace).
# Process level: the memory is really held while the candidate runs (no seccomp there).
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
IPC_PRIVATE, IPC_CREAT, IPC_RMID, SIZE = 0, 0o1000, 0, 16 << 20
made, error = [], None
for _ in range(24):
    shmid = libc.shmget(IPC_PRIVATE, ctypes.c_size_t(SIZE), IPC_CREAT | 0o600)
    if shmid < 0:
        e = ctypes.get_errno()
        error = OSError(e, os.strerror(e), f"shmget after {len(made) * 16} MB")
        break
    made.append(shmid)
    address = libc.shmat(shmid, None, 0)
    if address in (None, ctypes.c_void_p(-1).value):
        e = ctypes.get_errno()
        error = OSError(e, os.strerror(e), "shmat")
        break
    ctypes.memset(address, 0xA5, SIZE)
    libc.shmdt(ctypes.c_void_p(address))
if len(made) == 24 and error is None:
    print("ESCAPED: holding 384 MB of SysV shared memory")
for shmid in made:
    libc.shmctl(shmid, IPC_RMID, None)
if error is not None:
    raise error
