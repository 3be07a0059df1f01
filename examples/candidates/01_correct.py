# A candidate an LLM might write for: "find x, y with x + y == 10 and x > y > 0".
x, y = Ints("x y")
s.add(x + y == 10, x > y, y > 0)
print(s.check(), s.model())
