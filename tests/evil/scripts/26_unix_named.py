# Tries: connect to a named UNIX socket the test listens on (audit hook disarmed).
# Must get: blocked (seccomp refuses socket(AF_UNIX)).
import socket
import z3sandbox_kernel.child.harness as h
h.DENIED_EVENTS = frozenset()
u = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
u.connect("{{UNIX_PATH}}")
u.sendall(b"ESCAPED {{TOKEN}}")
print("ESCAPED: connected to the named socket")
