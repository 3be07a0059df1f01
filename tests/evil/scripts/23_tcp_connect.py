# Tries: connect to a TCP listener the test runs on 127.0.0.1.
# Must get: blocked (audit hook on socket creation; netns has no loopback; seccomp; Landlock TCP).
import socket
c = socket.create_connection(("127.0.0.1", {{TCP_PORT}}), timeout=2)
c.sendall(b"ESCAPED {{TOKEN}}")
print("ESCAPED: connected")
