# Tries: signal every pid in the host range through pidfd_open / pidfd_send_signal (which a
# pid-based filter cannot check) and through rt_sigqueueinfo.
# Must get: blocked (seccomp refuses pidfd_send_signal and checks the others' pid).
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
SYS_pidfd_open, SYS_pidfd_send_signal = 434, 424
errors = []
for pid in (1, {{ZYGOTE_PID}}, {{KERNEL_PID}}):
    fd = libc.syscall(SYS_pidfd_open, pid, 0)
    if fd >= 0:
        if libc.syscall(SYS_pidfd_send_signal, fd, 9, None, 0) == 0:
            print("ESCAPED: pidfd_send_signal to", pid)
    errors.append(ctypes.get_errno())
if libc.syscall(SYS_pidfd_send_signal, 0, 9, None, 0) == 0:
    print("ESCAPED: pidfd_send_signal on fd 0")
errors.append(ctypes.get_errno())
e = errors[0]
raise OSError(e, os.strerror(e), "pidfd")
