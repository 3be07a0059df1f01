# Tries: make 113,000 empty folders in scratch (no byte of data: only the inode limit can stop it).
# Must get: output_limit, "disk limit" (kill "disk"): the scratch tmpfs has one inode per 8 KB of
# disk_mb (4,096 for 32 MB).  At the process level (no tmpfs) the folders are made, or the wall
# limit ends it; either way they are removed after the run without stalling the zygote.
import os
for index in range(113_000):
    os.mkdir(f"d{index}")
print("made 113000 folders")
