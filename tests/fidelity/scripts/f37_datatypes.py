from z3 import *

Tree = Datatype("Tree")
Tree.declare("leaf", ("val", IntSort()))
Tree.declare("node", ("left", Tree), ("right", Tree))
Tree = Tree.create()
t = Const("t", Tree)
s = Solver()
s.add(Tree.is_node(t), Tree.is_node(Tree.left(t)), Tree.val(Tree.right(t)) == 7)
s.add(Tree.val(Tree.left(Tree.left(t))) > 2)
print(s.check())
print(s.model())
