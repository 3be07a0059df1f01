"""jupyter side of z3sandbox-kernel (see protocol/ for the process roles)."""
