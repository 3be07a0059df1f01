# Tries: a flood of tiny frames on the result descriptor, to keep the zygote decoding while a
# sibling's deadline passes.
# Must get: internal_error (protocol violation: a frame after the result), killed at the third frame.
import os, struct

tiny = struct.pack(">I", 2) + b"{}"
while True:
    os.write(3, tiny * 4096)
