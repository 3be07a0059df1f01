# Tries: claim the disk limit with an empty scratch: raise OSError(28, ...) itself.
# Must get: runtime_error, not output_limit/disk, at every level: the disk limit is believed only
# when the candidate's init found its scratch tmpfs full.
import errno
import os

raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
