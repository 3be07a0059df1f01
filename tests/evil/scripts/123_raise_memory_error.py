# Tries: claim the memory limit with 30 MB in use: raise MemoryError() itself.
# Must get: runtime_error ("raised by the script itself"), not memory_limit, at every level:
# the sandbox believes a memory limit only when rusage saw the memory near it.
raise MemoryError()
