# Tries: lower its own RLIMIT_CPU to 1 s and burn it, to die of SIGXCPU before the real limit.
# Must get: crashed ("lowered its own limit"), not cpu_limit, at every level: the CPU time the
# sandbox measured is under the request's limit.
import resource

resource.setrlimit(resource.RLIMIT_CPU, (1, resource.getrlimit(resource.RLIMIT_CPU)[1]))
while True:
    pass
