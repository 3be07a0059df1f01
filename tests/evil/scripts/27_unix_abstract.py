# Tries: connect to an abstract UNIX socket the test listens on (abstract sockets are not files,
# and a network namespace separates them only if the listener is in another one).
# Must get: blocked (seccomp refuses socket(AF_UNIX); Landlock ABI 6 scopes abstract sockets).
import socket
import z3sandbox_kernel.child.harness as h
h.DENIED_EVENTS = frozenset()
u = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
u.connect("\0{{ABSTRACT_NAME}}")
u.sendall(b"ESCAPED {{TOKEN}}")
print("ESCAPED: connected to the abstract socket")
