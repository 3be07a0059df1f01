# Tries: the same TCP connect with the harness's audit hook disarmed first (it is a reporting
# layer in user space; a script can reach its module), so only the kernel layers stand.
# Must get: blocked (seccomp refuses socket(); behind it the empty netns and Landlock ABI 4).
import socket
import z3sandbox_kernel.child.harness as h
h.DENIED_EVENTS = frozenset()
c = socket.create_connection(("127.0.0.1", {{TCP_PORT}}), timeout=2)
c.sendall(b"ESCAPED {{TOKEN}}")
print("ESCAPED: connected")
