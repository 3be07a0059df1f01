# Tries: spin the CPU forever in pure Python.
# Must get: cpu_limit (RLIMIT_CPU: SIGXCPU), kill "cpu", at every level.
while True:
    pass
