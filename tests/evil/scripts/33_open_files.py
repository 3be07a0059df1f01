# Tries: open 10^5 files.
# Must get: runtime_error "Too many open files" (RLIMIT_NOFILE), at every level.
handles = [open("/dev/null") for _ in range(100_000)]
print("ESCAPED: opened", len(handles))
