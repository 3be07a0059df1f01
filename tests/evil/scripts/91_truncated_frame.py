# Tries: a frame cut short (the header promises 100 bytes, 10 come), then exit.
# Must get: internal_error saying the result descriptor ends inside a frame.
import os, struct

os.write(3, struct.pack(">I", 100) + b'{"v": 1, "')
os._exit(0)
