# Tries: allocate 8 GiB at once.
# Must get: memory_limit (RLIMIT_AS -> MemoryError), kill "memory", at every level.
blob = bytearray(8 << 30)
print("ESCAPED: got", len(blob))
