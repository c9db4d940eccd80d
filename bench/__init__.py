"""Rigs and benches that exist for the tests and `make bench`: not part of the
product. `bench.floor` builds floors of virtual boards on this machine."""
