# Tries: ptrace-attach to our PID 1 and to the kernel's host pid, and process_vm_readv of them.
# Must get: blocked (seccomp refuses ptrace and process_vm_readv).
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
PTRACE_ATTACH = 16
errors = []
for pid in (1, {{KERNEL_PID}}, {{ZYGOTE_PID}}):
    if libc.ptrace(PTRACE_ATTACH, pid, None, None) == 0:
        print("ESCAPED: ptrace attached to", pid)
    else:
        errors.append(ctypes.get_errno())
    buf = ctypes.create_string_buffer(16)
    class iovec(ctypes.Structure):
        _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]
    local = iovec(ctypes.cast(buf, ctypes.c_void_p), 16)
    remote = iovec(0x400000, 16)
    if libc.process_vm_readv(pid, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0) > 0:
        print("ESCAPED: process_vm_readv of", pid)
    else:
        errors.append(ctypes.get_errno())
e = errors[0]
raise OSError(e, os.strerror(e), "ptrace")
