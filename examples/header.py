# Solve a 4-byte protocol header and keep the rest of the seed packet (run with a seed file):
#   z3sandbox run -k 4 examples/header.py --seed-file examples/packet.bin --payload-dir out/
# byte_0..byte_3 become bytes 0..3 of the payload; every other byte keeps the seed's value.
b = [BitVec(f"byte_{i}", 8) for i in range(4)]
s.add(b[0] == 0x7F, b[1] == ord("Z"))          # magic
s.add(b[2] == 12)                               # length field: the body is 12 bytes
s.add(b[3] == (b[0] ^ b[1] ^ b[2]))             # checksum byte
