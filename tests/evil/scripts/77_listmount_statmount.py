# Tries: list the host's mounts and read one's mount point with listmount/statmount (Linux 6.8, by
# number: libseccomp 2.5.4 does not know them, so the filter takes their numbers from the kernel's
# unified table), which need no privilege and no path Landlock could refuse.
# Must get: blocked (seccomp refuses both with EPERM, even on kernels newer than libseccomp).
# Process level: the mount table is read where the kernel has these calls (SECURITY.md).
import ctypes, os, struct
libc = ctypes.CDLL(None, use_errno=True)
STATMOUNT, LISTMOUNT = 457, 458  # the same number on every architecture
LSMT_ROOT, STATMOUNT_MNT_POINT = (1 << 64) - 1, 0x10


def request(mnt_id, param=0):
    return ctypes.create_string_buffer(struct.pack("=IIQQ", 24, 0, mnt_id, param), 24)


ids = (ctypes.c_uint64 * 64)()
count = libc.syscall(LISTMOUNT, request(LSMT_ROOT), ids, ctypes.c_size_t(64), 0)
if count < 0:
    e = ctypes.get_errno()
    raise OSError(e, os.strerror(e), "listmount")
print("ESCAPED: listmount listed", count, "mounts")
info = ctypes.create_string_buffer(4096)
got = libc.syscall(STATMOUNT, request(ids[0], STATMOUNT_MNT_POINT), info, ctypes.c_size_t(4096), 0)
if got < 0:
    e = ctypes.get_errno()
    raise OSError(e, os.strerror(e), "statmount")
print("ESCAPED: statmount answered for mount", ids[0])
