# Tries: send a UDP datagram to a socket the test listens on (audit hook disarmed).
# Must get: blocked (seccomp refuses socket(); the netns has no interface up).
import socket
import z3sandbox_kernel.child.harness as h
h.DENIED_EVENTS = frozenset()
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
u.sendto(b"ESCAPED {{TOKEN}}", ("127.0.0.1", {{UDP_PORT}}))
print("ESCAPED: sent a datagram")
