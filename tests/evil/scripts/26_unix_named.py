# Tries: connect to a named UNIX socket the test listens on, through libc (no audit event).
# Must get: blocked (seccomp refuses socket(AF_UNIX)).
{{RAW_LIBC}}
fd = raw_socket(socket.AF_UNIX, socket.SOCK_STREAM)
raw_connect(fd, sockaddr_un("{{UNIX_PATH}}"))
raw_send(fd, b"ESCAPED {{TOKEN}}")
print("ESCAPED: connected to the named socket")
