# Prints what the VM holds of where it was started from: its module search
# path, the file names of a firmware module and of this program, its argv.
import sys

import crapsboard.rules.engine as engine

print(repr(sys.path))
print(engine.__file__)
print(__file__)
print(repr(sys.argv))
