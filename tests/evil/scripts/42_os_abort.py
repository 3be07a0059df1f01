# Tries: os.abort().
# Must get: crashed, killed by SIGABRT.
import os
os.abort()
