# Tries: ignore SIGXCPU, then spin, hoping the soft CPU limit is only a signal.
# Must get: cpu_limit (SIGKILL at the hard CPU limit), kill "cpu", at every level.
import signal
signal.signal(signal.SIGXCPU, signal.SIG_IGN)
while True:
    pass
