from dataclasses import dataclass
from z3 import *


@dataclass
class Box:
    w: int
    h: int


def solve_box():
    w, h = Ints("w h")
    s = Solver()
    s.add(w * h == 24, w > h, h > 2)
    assert s.check() == sat
    m = s.model()
    return Box(m[w].as_long(), m[h].as_long())


if __name__ == "__main__":
    print(solve_box())
    import __main__
    print(__main__.Box is Box)
