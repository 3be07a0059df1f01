# Tries: dereference NULL through ctypes.
# Must get: crashed, killed by SIGSEGV.
import ctypes
ctypes.string_at(0)
