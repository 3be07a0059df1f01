# Tries: write a 4 GiB file in the scratch folder (the working directory).
# Must get: output_limit, kill "file_size" (RLIMIT_FSIZE -> SIGXFSZ), at every level.
chunk = b"\0" * (1 << 20)
with open("big.bin", "wb") as f:
    for _ in range(4096):
        f.write(chunk)
print("ESCAPED: wrote 4 GiB")
