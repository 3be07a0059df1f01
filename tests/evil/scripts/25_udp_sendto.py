# Tries: send a UDP datagram to a socket the test listens on, through libc (no audit event).
# Must get: blocked (seccomp refuses socket(); the netns has no interface up).
{{RAW_LIBC}}
fd = raw_socket(socket.AF_INET, socket.SOCK_DGRAM)
raw_send(fd, b"ESCAPED {{TOKEN}}", sockaddr_in("127.0.0.1", {{UDP_PORT}}))
print("ESCAPED: sent a datagram")
