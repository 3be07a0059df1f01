from z3 import *

fp = Fixedpoint()
fp.set(engine="spacer")
inv = Function("inv", IntSort(), BoolSort())
err = Function("err", BoolSort())
x, y = Ints("x y")
fp.register_relation(inv, err)
fp.declare_var(x, y)
fp.rule(inv(x), x == 0)
fp.rule(inv(y), [inv(x), y == x + 2, x < 10])
fp.rule(err(), [inv(x), x == 7])
print(fp.query(err()))
print(fp.get_answer())
