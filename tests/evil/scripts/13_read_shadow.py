# Tries: read /etc/shadow.
# Must get: blocked (Landlock grants nothing in /etc; as a normal user the file mode refuses too).
data = open("/etc/shadow").read()
print("ESCAPED: read /etc/shadow:", data[:200])
