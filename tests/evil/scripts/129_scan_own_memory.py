# Tries: read its own address space with ctypes alone (a pipe copies each page; an unmapped one
# answers EFAULT, no crash) and look for other candidates' data a fork inherited: the sibling's
# secret (in its script, next to this one, and in every earlier sibling's of this Sandbox) and
# the sibling's script text (issue 20: 5 of 5 earlier scripts, 6 of 6 running siblings).
# Must get: no_check, nothing found, at every level: candidates are forked from a process that
# never held a request (zygote/forker.py).  Prints what it found (a secret is then a canary).
import ctypes
import os
import re
import time

PAGE = 4096
HALF = b"print('sibl"  # the sibling's script, in two halves: the whole never exists here
REST = b"ing-ok')"
SECRET = re.compile(rb"sibling-" + rb"secret-[0-9a-f]{24}")
started = time.monotonic()
read_end, write_end = os.pipe()
os.set_blocking(write_end, False)


def page(address):
    """The page at ``address``, or None when it is not mapped (EFAULT) or not readable."""
    try:
        os.write(write_end, (ctypes.c_char * PAGE).from_address(address))
    except OSError:
        return None
    return os.read(read_end, PAGE)


def ranges():
    """Mapped ranges: from /proc/self/maps where it can be read, else outward from the heap."""
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                low, high = (int(x, 16) for x in line.split()[0].split("-"))
                if "r" in line.split()[1]:
                    yield low, high
        return
    except OSError:
        pass
    anchors = {ctypes.addressof(ctypes.create_string_buffer(1 << 16)), id(object()), id(ranges)}
    for anchor in anchors:
        base = anchor & ~(PAGE - 1)
        low = base
        while page(low - PAGE) is not None and base - low < (1 << 30):
            low -= PAGE
        high = base
        while page(high) is not None and high - low < (1 << 30):
            high += PAGE
        yield low, high


secrets_found, scripts_found, scanned = set(), set(), 0
for low, high in ranges():
    for address in range(low, high, PAGE):
        if time.monotonic() - started > 5.0 or scanned > (1 << 30):
            break
        data = page(address)
        if data is None:
            continue
        scanned += PAGE
        secrets_found.update(SECRET.findall(data))
        at = data.find(HALF)
        while at >= 0:
            if data[at + len(HALF):at + len(HALF) + len(REST)] == REST:
                scripts_found.add(address + at)
            at = data.find(HALF, at + 1)
print(f"scanned {scanned >> 20} MB; sibling secrets found: {len(secrets_found)}; "
      f"sibling script copies found: {len(scripts_found)}")
for secret in sorted(secrets_found):
    print("ESCAPED: found", secret.decode())
if scripts_found:
    print("ESCAPED: another candidate's script is in this one's memory")
