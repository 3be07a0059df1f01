# Tries: connect to an abstract UNIX socket the test listens on (abstract sockets are not files,
# and a network namespace separates them only if the listener is in another one), through libc.
# Must get: blocked (seccomp refuses socket(AF_UNIX); Landlock ABI 6 scopes abstract sockets).
{{RAW_LIBC}}
fd = raw_socket(socket.AF_UNIX, socket.SOCK_STREAM)
raw_connect(fd, sockaddr_un("\0{{ABSTRACT_NAME}}"))
raw_send(fd, b"ESCAPED {{TOKEN}}")
print("ESCAPED: connected to the abstract socket")
