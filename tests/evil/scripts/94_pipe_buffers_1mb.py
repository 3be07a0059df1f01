# Tries: hold memory that RLIMIT_AS does not count in pipe buffers: as many pipes as the open-files
# limit allows, each grown to 1 MB with fcntl(F_SETPIPE_SZ) and filled (30 MB at files=64, up to
# the user's 64 MB pipe quota, shared with the user's other processes, with a larger limit).
# Must get: blocked (seccomp refuses F_SETPIPE_SZ: pipes keep their 64 KB).  Process level: no
# filter, the buffers are held until the candidate ends (SECURITY.md).
import fcntl, os
F_SETPIPE_SZ = 1031
held, pipes = 0, []
try:
    while True:
        pipes.append(os.pipe())
except OSError:
    pass
os.close(pipes.pop()[1])  # room for nothing else to fail on
for read_end, write_end in pipes:
    fcntl.fcntl(write_end, F_SETPIPE_SZ, 1 << 20)
    os.set_blocking(write_end, False)
    try:
        while True:
            held += os.write(write_end, b"\xa5" * 65536)
    except BlockingIOError:
        pass
if held > 16 << 20:
    print(f"ESCAPED: {held >> 20} MB held in pipe buffers")
