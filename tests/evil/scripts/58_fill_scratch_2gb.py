# Tries: write 2 GB into scratch in files of 8 MB (each under the file-size limit).
# Must get: output_limit, "disk limit" (kill "disk"): scratch is a private tmpfs of disk_mb
# (32 MB here), ENOSPC long before 2 GB.
chunk = b"\x5a" * (8 << 20)
for index in range(256):
    with open(f"fill-{index}.bin", "wb") as handle:
        handle.write(chunk)
print("ESCAPED: 2 GB written to scratch")
