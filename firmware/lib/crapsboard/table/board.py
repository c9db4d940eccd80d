# The real board: the only module that imports machine and neopixel.
#
# Builds the keypad, button and strip pins and the watchdog from the layout
# (board.json) and offers the interface app.App expects: rows, cols, buttons,
# show(frame), feed(), ticks_ms(). sim/portable/simboard.py is its desktop twin.
# Also the start-up patterns main.py shows before the app runs (booting,
# safe mode, fault), written in the strip's own byte order.
import time

import machine
import neopixel

WATCHDOG_TIMEOUT_MS = 8000  # reset if the app's tasks stop running for this long

# The shipped strip (hardware/board.json; a test holds them equal): the fault
# can still be shown when board.json itself is missing or broken.
FALLBACK_STRIP_PIN = 13
FALLBACK_PIXEL_COUNT = 47
FALLBACK_ORDER = "GRB"
FALLBACK_FAULT_PIXELS = (0, 1, 2)  # status, alert.floor, alert.manager

# Start-up patterns: (R, G, B) at a quarter of full brightness, lit on the
# status lamp (and, for a fault, both alert lamps so the floor sees it).
BOOTING_RGB = (64, 64, 64)  # white: starting
SAFE_RGB = (40, 0, 64)  # violet: safe mode, app not started
FAULT_RGB = (64, 0, 0)  # red, steady: could not start
MAINTENANCE_RGB = (40, 0, 64)  # violet on the status and both alert lamps: maintenance mode

_PULLS = {"up": machine.Pin.PULL_UP, "down": machine.Pin.PULL_DOWN, "none": None}


def pattern(pixel_count, order, lit, rgb):
    """A frame in the strip's byte order: the pixels in `lit` at `rgb`, the rest dark."""
    frame = bytearray(3 * pixel_count)
    for pixel in lit:
        if 0 <= pixel < pixel_count:
            for j in range(3):
                frame[3 * pixel + j] = rgb["RGB".index(order[j])]
    return frame


def show_fault_without_layout(rgb=FAULT_RGB):
    """The fault pattern on the shipped strip, for when board.json cannot be used."""
    strip = neopixel.NeoPixel(machine.Pin(FALLBACK_STRIP_PIN, machine.Pin.OUT), FALLBACK_PIXEL_COUNT)
    strip.buf[:] = pattern(FALLBACK_PIXEL_COUNT, FALLBACK_ORDER, FALLBACK_FAULT_PIXELS, rgb)
    strip.write()


def show_maintenance():
    """Maintenance mode on the shipped strip: shown before the layout is read,
    since in maintenance (a deploy cut halfway) no module beyond this one and
    startup may be trusted to load."""
    show_fault_without_layout(MAINTENANCE_RGB)


def reset_after(ms):
    """Wait `ms` (the fault stays lit), then reset the chip."""
    time.sleep_ms(ms)
    machine.reset()


def reset_cause():
    return machine.reset_cause()


def board_id():
    """This chip's id (its MAC): the journal refuses a journal of another board."""
    return machine.unique_id()


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
        # Each lamp feed's eFuse FAULT flag: open-drain, pulled up on the
        # carrier (GPIO34-39 have no pull of their own), low once it latched off.
        self.feed_faults = [Pin(p, Pin.IN) for p in layout.feed_fault_pins]
        self._strip = neopixel.NeoPixel(Pin(layout.strip_pin, Pin.OUT), layout.pixel_count)
        self._order = layout.order
        pixels = layout.pixels
        self._status = (pixels.get("status", 0),)
        self._alarm = (pixels.get("status", 0), pixels.get("alert.floor", -1), pixels.get("alert.manager", -1))
        self._wdt = None
        self.ticks_ms = time.ticks_ms
        self.sleep_us = time.sleep_us  # the keypad's settle wait

    def held_at_power_up(self, index):
        """Button `index` (layout.BUTTONS order) is down now."""
        pin = self.buttons[index]
        return pin is not None and (pin.value() == 0) == self._active_low[index]

    def start_watchdog(self):
        """Start the watchdog. It cannot be stopped, not even by a soft reset."""
        self._wdt = machine.WDT(timeout=WATCHDOG_TIMEOUT_MS)

    def feed(self):
        if self._wdt is not None:
            self._wdt.feed()

    def show(self, frame):
        """Send a frame (bytes in the strip's order, one triple per pixel)."""
        self._strip.buf[:] = frame
        self._strip.write()

    def _pattern(self, lit, rgb):
        self.show(pattern(len(self._strip.buf) // 3, self._order, lit, rgb))

    def booting(self):
        """Status lamp white: the board is alive and loading the app."""
        self._pattern(self._status, BOOTING_RGB)

    def safe_mode(self):
        """Status lamp violet: safe mode, no app and no watchdog."""
        self._pattern(self._status, SAFE_RGB)

    def fault(self):
        """Status and alert lamps steady red, the rest dark: the app could not start."""
        self._pattern(self._alarm, FAULT_RGB)
