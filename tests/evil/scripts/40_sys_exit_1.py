# Tries: sys.exit(1).
# Must get: runtime_error naming sys.exit(1).
import sys
sys.exit(1)
