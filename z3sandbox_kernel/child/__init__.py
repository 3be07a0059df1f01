"""child side of z3sandbox-kernel (see protocol.py for the process roles)."""
