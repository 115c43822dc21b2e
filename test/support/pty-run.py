"""Runs a command on a real pseudo-terminal and prints everything the terminal received.

Usage: python3 pty-run.py COLUMNS COMMAND [ARGS...]

stdin, stdout and stderr of COMMAND are the terminal (COLUMNS wide, 24 rows).
The raw bytes the terminal received go to this script's stdout; the command's
exit code becomes this script's exit code. Used by the tests of abha-link
submit's terminal output; python3 is part of Debian's base images, and
util-linux `script` cannot set the terminal's width.
"""
import fcntl
import os
import struct
import subprocess
import sys
import termios

cols = int(sys.argv[1])
argv = sys.argv[2:]
master, slave = os.openpty()
fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, cols, 0, 0))
child = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, start_new_session=True)
os.close(slave)
chunks = []
while True:
    try:
        data = os.read(master, 65536)
    except OSError:  # EIO: every holder of the terminal's other end has closed it
        break
    if not data:
        break
    chunks.append(data)
code = child.wait()
sys.stdout.buffer.write(b"".join(chunks))
sys.stdout.flush()
sys.exit(code if code >= 0 else 128 - code)
