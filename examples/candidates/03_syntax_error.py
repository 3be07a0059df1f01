# A candidate with a syntax error: the verdict names the line and column.
x, y = Ints("x y"
s.add(x + y == 10)
