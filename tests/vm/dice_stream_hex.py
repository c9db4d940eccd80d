# The benchmark's dice stream under the VM, as hex, to compare with CPython's.
from sim.portable import dice_stream

print(bytes(dice_stream.rolls(12345, 500)).hex())
