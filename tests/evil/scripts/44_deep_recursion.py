# Tries: unbounded recursion with the recursion limit lifted, to overflow the C stack.
# Must get: crashed (SIGSEGV), runtime_error (RecursionError) or memory_limit; never a hang.
import sys
sys.setrecursionlimit(10**8)
def down(n):
    return down(n + 1) + 1
down(0)
