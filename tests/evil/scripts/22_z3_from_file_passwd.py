# Tries: read /etc/passwd through z3's parser (Solver.from_file), whose error text might echo it.
# Must get: an error (blocked or runtime_error), and no line of /etc/passwd in any output.
Solver().from_file("/etc/passwd")
print("ESCAPED: z3 parsed /etc/passwd")
