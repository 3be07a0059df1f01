; Options that make z3 print more, or print differently, than the answer: the output is z3's,
; the verdict and the model are the harness's (values, not this text).
(set-option :print-success true)
(set-option :pp.decimal true)
(declare-const |unsat| Real)
(declare-const |(objectives (x 1))| Int)
(assert (= (* 3.0 |unsat|) 1.0))
(assert (> |(objectives (x 1))| 7))
(echo "unsat")
(check-sat)
(echo "unsat")
(get-value (|unsat| |(objectives (x 1))|))
(get-info :reason-unknown)
(get-model)
