;; :global-declarations through z3's API: refused once a context exists (docs/fidelity.md), so the
;; pop below drops x, and the script is a syntax_error, as in-process z3 says; the z3 binary accepts it.
(set-option :global-declarations true)
(push 1)
(declare-const x Int)
(pop 1)
(assert (> x 1))
(check-sat)
