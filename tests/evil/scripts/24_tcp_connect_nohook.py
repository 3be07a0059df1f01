# Tries: the same TCP connect through libc directly (ctypes: no audit event), so only the kernel
# layers stand.
# Must get: blocked (seccomp refuses socket(); behind it the empty netns and Landlock ABI 4).
{{RAW_LIBC}}
fd = raw_socket(socket.AF_INET, socket.SOCK_STREAM)
raw_connect(fd, sockaddr_in("127.0.0.1", {{TCP_PORT}}))
raw_send(fd, b"ESCAPED {{TOKEN}}")
print("ESCAPED: connected")
