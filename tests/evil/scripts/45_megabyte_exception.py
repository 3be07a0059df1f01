# Tries: raise an exception whose message is 1 MB long.
# Must get: runtime_error with a reason capped at a few KB.
raise ValueError("A" * (1 << 20))
