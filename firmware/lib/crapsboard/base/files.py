# The filesystem question several parts ask: is there a file or folder at a path?
import os


def exists(path):
    try:
        os.stat(path)
        return True
    except OSError:
        return False
