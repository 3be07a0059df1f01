"""The types of z3's C handles, for the signatures of what calls z3's C functions: z3.py hands them
ContextObj, SolverObj, AstObj, ModelObj ..., every one a ctypes.c_void_p (z3core.py), the only type
z3 gives them."""

from __future__ import annotations

import ctypes
from typing import TypeAlias

import z3

Pointer = ctypes.c_void_p
Pointers: TypeAlias = "ctypes.Array[ctypes.c_void_p]"  # a C array of handles: a check's assumptions
Loaded: TypeAlias = "z3.Solver | z3.Optimize"  # what the harness loads an SMT-LIB script into
