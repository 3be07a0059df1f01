# Tries: attach and read a SysV shared-memory segment of a host process (the test process made one
# with key {{SHM_KEY}}, mode 0600, holding a secret).
# Must get: blocked (seccomp refuses shmget) or, beneath it, runtime_error: the candidate's IPC
# namespace has no such key (ENOENT).  The secret never appears in any output.
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
shmid = libc.shmget({{SHM_KEY}}, ctypes.c_size_t(0), 0)
if shmid < 0:
    e = ctypes.get_errno()
    raise OSError(e, os.strerror(e), "shmget of the host's segment")
address = libc.shmat(shmid, None, 0o10000)  # SHM_RDONLY
if address in (None, ctypes.c_void_p(-1).value):
    e = ctypes.get_errno()
    raise OSError(e, os.strerror(e), "shmat of the host's segment")
print("ESCAPED:", ctypes.string_at(address, 64).split(b"\0")[0].decode())
