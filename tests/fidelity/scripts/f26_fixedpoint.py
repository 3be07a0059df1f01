from z3 import *

fp = Fixedpoint()
fp.set(engine="datalog")
s = BitVecSort(3)
edge = Function("edge", s, s, BoolSort())
path = Function("path", s, s, BoolSort())
a, b, c = Consts("a b c", s)
fp.register_relation(path, edge)
fp.declare_var(a, b, c)
fp.rule(path(a, b), edge(a, b))
fp.rule(path(a, c), [edge(a, b), path(b, c)])
for u, v in [(1, 2), (2, 3), (3, 4), (5, 6)]:
    fp.fact(edge(BitVecVal(u, s), BitVecVal(v, s)))
print(fp.query(path(BitVecVal(1, s), BitVecVal(4, s))))
print(fp.query(path(BitVecVal(1, s), BitVecVal(6, s))))
print(fp.get_answer())
