# A wrong candidate: the constraints contradict each other (unsat).
x, y = Ints("x y")
s.add(x + y == 10, x > y, y > 10)
