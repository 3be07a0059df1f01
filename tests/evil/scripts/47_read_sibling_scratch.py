# Tries: list the zygote's scratch base (our folder's parent) and read the files of the sibling
# candidate's scratch folder, which holds its secret.
# Must get: blocked (Landlock: nothing outside our own scratch); no sibling secret in any output.
import os
base = os.path.dirname(os.getcwd())
for name in os.listdir(base):
    folder = os.path.join(base, name)
    if folder == os.getcwd():
        continue
    for entry in os.listdir(folder):
        print("ESCAPED:", name, entry, open(os.path.join(folder, entry)).read())
