# z3's own doctests: as many examples found and passed as in a plain run.  The harness's wrappers
# once dropped the docstrings of check, model, add... (2,296 examples found of 2,363).
import doctest

import z3

result = doctest.testmod(z3.z3, report=False)
print(result.attempted, result.failed)
