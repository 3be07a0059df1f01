(set-option :dump-models true)
(declare-const |a
unsat
| Int)
(declare-const x Int)
(assert (> x 3))
(assert (< x 10))
(check-sat)
