# The real board: the only module that imports machine and neopixel.
#
# Builds the keypad, button and strip pins and the watchdog from the layout
# (board.json) and offers the interface app.App expects: rows, cols, buttons,
# show(frame), feed(), ticks_ms(). sim/simboard.py is its desktop twin.
import time

import machine
import neopixel

WATCHDOG_MS = 8000  # reset if the app's tasks stop running for this long

_PULLS = {"up": machine.Pin.PULL_UP, "down": machine.Pin.PULL_DOWN, "none": None}


class Board:
    def __init__(self, layout):
        Pin = machine.Pin
        # Rows open-drain: two keys pressed in one column never short two outputs.
        self.rows = [Pin(p, Pin.OPEN_DRAIN, value=1) for p in layout.rows]
        self.cols = [Pin(p, Pin.IN, Pin.PULL_UP) for p in layout.cols]
        self.buttons = []
        for i in range(len(layout.button_pins)):
            pin = layout.button_pins[i]
            self.buttons.append(None if pin is None else Pin(pin, Pin.IN, _PULLS[layout.button_pull[i]]))
        self._active_low = layout.button_active_low
        self._strip = neopixel.NeoPixel(Pin(layout.strip_pin, Pin.OUT), layout.pixel_count)
        self._status_pixel = layout.pixels.get("status", 0)
        self._wdt = None
        self.ticks_ms = time.ticks_ms

    def held_at_power_up(self, index):
        """Button `index` (layout.BUTTONS order) is down now: main.py's safe mode."""
        pin = self.buttons[index]
        return pin is not None and (pin.value() == 0) == self._active_low[index]

    def start_watchdog(self):
        """Start the watchdog. It cannot be stopped, not even by a soft reset."""
        self._wdt = machine.WDT(timeout=WATCHDOG_MS)

    def feed(self):
        if self._wdt is not None:
            self._wdt.feed()

    def show(self, frame):
        """Send a frame (bytes in the strip's order, one triple per pixel)."""
        self._strip.buf[:] = frame
        self._strip.write()

    def fault(self):
        """Everything dark but the status lamp, steady red: the app could not start."""
        buf = self._strip.buf
        for i in range(len(buf)):
            buf[i] = 0
        self._strip[self._status_pixel] = (64, 0, 0)
        self._strip.write()
