# Tries: replace the candidate with /bin/sh through libc's execv (no audit event).
# Must get: blocked (seccomp refuses execve).
{{RAW_LIBC}}
argv = (ctypes.c_char_p * 4)(b"/bin/sh", b"-c", b"echo ESCAPED > {{WATCHED}}/execve.txt", None)
raw(libc.execv(b"/bin/sh", argv))
