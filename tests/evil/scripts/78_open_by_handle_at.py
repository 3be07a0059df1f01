# Tries: the "shocker" escape: name_to_handle_at on a host file, then open_by_handle_at, which opens
# by inode and so skips every path check (Landlock's, and the mount namespace's view).
# Must get: blocked (seccomp refuses both with EPERM; open_by_handle_at also needs
# CAP_DAC_READ_SEARCH, which the candidate no longer has).
# Process level: root opens the file (the escape is documented); a normal user lacks the capability.
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
AT_FDCWD, MAX_HANDLE_SZ = -100, 128


class FileHandle(ctypes.Structure):
    _fields_ = (("handle_bytes", ctypes.c_uint), ("handle_type", ctypes.c_int),
                ("f_handle", ctypes.c_ubyte * MAX_HANDLE_SZ))


handle, mount_id = FileHandle(MAX_HANDLE_SZ, 0), ctypes.c_int(0)
if libc.name_to_handle_at(AT_FDCWD, b"/etc/passwd", ctypes.byref(handle), ctypes.byref(mount_id), 0):
    e = ctypes.get_errno()
    raise OSError(e, os.strerror(e), "name_to_handle_at")
mount_fd = os.open("/", os.O_RDONLY | os.O_DIRECTORY)
fd = libc.open_by_handle_at(mount_fd, ctypes.byref(handle), os.O_RDONLY)
if fd < 0:
    e = ctypes.get_errno()
    raise OSError(e, os.strerror(e), "open_by_handle_at")
print("ESCAPED: opened /etc/passwd by handle,", len(os.read(fd, 4096)), "bytes readable")
