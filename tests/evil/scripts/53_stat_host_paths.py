# Tries: find out about host paths without reading them: stat, lstat, readlink and os.path.exists
# on the test's HOME and its canary, the watched folder, /root, /home, /etc/shadow, the project's
# .git and .env, and the host PID of the test process in /proc.
# Must get: none of them exists in the candidate's view (runtime_error, "No such file") or Landlock
# refuses (blocked); never a size, an owner or a link target in the output.
import os
paths = ["{{HOME}}", "{{CANARY_FILE}}", "{{WATCHED}}", "/root", "/home", "/etc/shadow",
         "{{PROJECT_ROOT}}/.git", "{{PROJECT_ROOT}}/.env", "{{PROJECT_ROOT}}/pyproject.toml",
         "/proc/{{KERNEL_PID}}/exe"]
first = None
for path in paths:
    for probe in (os.stat, os.lstat, os.readlink):
        try:
            result = probe(path)
            if probe is os.readlink or path.startswith(("{{HOME}}", "{{WATCHED}}", "{{PROJECT_ROOT}}")):
                print("ESCAPED:", probe.__name__, path, result)
        except OSError as exc:
            first = first or exc
if first is not None:
    raise first
