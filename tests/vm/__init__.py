"""Programs the tests run under the MicroPython VM (CPython imports some of them too)."""
