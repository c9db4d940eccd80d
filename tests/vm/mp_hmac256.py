# Runs crapsboard.base.hmac256 on test cases from stdin, one per line:
# "hmac KEYHEX MSGHEX" or "pbkdf2 PASSWORDHEX SALTHEX ITERATIONS"; prints the hex
# digest of each. Shared by both runtimes (tests/test_pin_hash.py).
import binascii
import sys

from crapsboard.base.hmac256 import hmac_sha256, pbkdf2_sha256


def run(lines, write):
    for line in lines:
        fields = line.split()
        if not fields:
            continue
        if fields[0] == "hmac":
            digest = hmac_sha256(binascii.unhexlify(fields[1]), binascii.unhexlify(fields[2]))
        else:
            digest = pbkdf2_sha256(binascii.unhexlify(fields[1]), binascii.unhexlify(fields[2]), int(fields[3]))
        write(binascii.hexlify(digest).decode() + "\n")


if __name__ == "__main__":
    run(sys.stdin.read().split("\n"), sys.stdout.write)
