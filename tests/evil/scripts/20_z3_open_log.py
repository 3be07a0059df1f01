# Tries: make z3 write its API log outside scratch with open_log.
# Must get: the log file never appears (Landlock); z3 ignores the failed open, so the script's
# own check may still be sat.
import os
open_log("{{WATCHED}}/z3_open_log.txt")
append_log("ESCAPED {{TOKEN}}")
x = Int("x")
s.add(x == 1)
s.check()
if os.path.exists("{{WATCHED}}/z3_open_log.txt"):
    print("ESCAPED: open_log wrote outside scratch")
