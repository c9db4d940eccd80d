# hmac_sha256 on lines of "KEY_HEX MSG_HEX" from stdin; prints the tag in hex per line.
import binascii
import sys

from crapsboard.base.hmac256 import hmac_sha256

for line in sys.stdin:
    fields = line.split()
    if len(fields) == 2:
        key, msg = binascii.unhexlify(fields[0]), binascii.unhexlify(fields[1])
        print(binascii.hexlify(hmac_sha256(key, msg)).decode())
