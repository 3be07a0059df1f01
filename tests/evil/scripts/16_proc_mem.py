# Tries: read the kernel's memory through /proc/<pid>/mem and search it for the canary variable.
# Must get: blocked (Landlock: no /proc, and Landlock's ptrace scoping), no canary in any output.
import re
pid = {{KERNEL_PID}}
maps = open(f"/proc/{pid}/maps").read()
mem = open(f"/proc/{pid}/mem", "rb", 0)
for line in maps.splitlines():
    m = re.match(r"([0-9a-f]+)-([0-9a-f]+) r", line)
    if not m or "[stack]" not in line:
        continue
    start, end = int(m.group(1), 16), int(m.group(2), 16)
    mem.seek(start)
    chunk = mem.read(end - start)
    i = chunk.find(b"Z3SB_CANARY=")
    print("ESCAPED: read", len(chunk), "bytes", chunk[i:i + 80] if i >= 0 else b"")
