"""Desktop simulator and analysis tools. Runs the firmware's own modules.

    sim/portable/  runs under CPython and the MicroPython VM alike (MicroPython subset)
    sim/analysis/  exact odds, simulation, plots and the benchmark (CPython)
    sim/tui/       the full-screen terminal board (CPython, textual)
    sim/*.py       command-line front-ends, the Session API and the VM launcher

This file stays empty of code: MicroPython imports it on the way to sim.portable.
"""
