# Tries: hold more than the disk limit in POSIX shared memory (files in /dev/shm, 8 MB each, under
# the file-size limit, 256 MB in all with disk_mb=32): /dev/shm memory is outside RLIMIT_AS.
# Must get: output_limit, "disk limit" (kill "disk"): /dev/shm is a folder of the candidate's own
# scratch tmpfs, so it counts against disk_mb and ENOSPC ends the candidate.
import os
chunk = b"\xa5" * (8 << 20)
for index in range(32):
    with open(f"/dev/shm/z3sbevil-{index}", "wb") as handle:
        handle.write(chunk)
print("ESCAPED: 256 MB held in /dev/shm")
