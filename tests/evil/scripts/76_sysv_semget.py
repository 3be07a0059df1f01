# Tries: a SysV semaphore set (host-wide without an IPC namespace: it outlives the candidate, and
# semop with SEM_UNDO pins kernel memory), then an operation on it.  Removed again if made.
# Must get: blocked (seccomp refuses semget with EPERM).  POSIX semaphores (sem_open, files in
# /dev/shm, which multiprocessing uses) are another mechanism and stay allowed (script 79).
# Process level: the set is made (no seccomp there; SECURITY.md).
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
IPC_PRIVATE, IPC_CREAT, IPC_RMID, SEM_UNDO = 0, 0o1000, 0, 0x1000
semaphores = libc.semget(IPC_PRIVATE, 1, IPC_CREAT | 0o600)
if semaphores < 0:
    e = ctypes.get_errno()
    raise OSError(e, os.strerror(e), "semget")
operation = (ctypes.c_short * 3)(0, 1, SEM_UNDO)  # struct sembuf: number, op, flags
done = libc.semop(semaphores, operation, 1)
libc.semctl(semaphores, 0, IPC_RMID)
print("ESCAPED: SysV semaphore set", semaphores, "made, semop", done)
