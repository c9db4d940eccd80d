# Facts about the ESP32 chip and the ESP32-DevKitC V4 board (not about this product):
# header pin order, pins with a boot or flash function, and why each usable pin is safe.

# ESP32-DevKitC V4 headers, pin 1 at the antenna end. J2 is the left header
# (3V3 ... 5V), J3 the right one (GND ... CLK), as in the V4 schematic and the
# header table of Espressif's current ESP32-DevKitC V4 user guide (esp-dev-kits);
# older ESP-IDF getting-started pages called the left header J1.
J2 = [
    "3V3",
    "EN",
    "IO36",
    "IO39",
    "IO34",
    "IO35",
    "IO32",
    "IO33",
    "IO25",
    "IO26",
    "IO27",
    "IO14",
    "IO12",
    "GND",
    "IO13",
    "IO9",
    "IO10",
    "IO11",
    "5V",
]
J3 = [
    "GND",
    "IO23",
    "IO22",
    "IO1",
    "IO3",
    "IO21",
    "GND",
    "IO19",
    "IO18",
    "IO5",
    "IO17",
    "IO16",
    "IO4",
    "IO0",
    "IO2",
    "IO15",
    "IO8",
    "IO7",
    "IO6",
]
SILK = {
    "IO36": "VP",
    "IO39": "VN",
    "IO9": "D2",
    "IO10": "D3",
    "IO11": "CMD",
    "IO1": "TX",
    "IO3": "RX",
    "IO8": "D1",
    "IO7": "D0",
    "IO6": "CLK",
}

FLASH = frozenset(range(6, 12))  # wired to the module's SPI flash
STRAPPING = frozenset((0, 2, 5, 12, 15))  # sampled at reset: boot mode, flash voltage
INPUT_ONLY = frozenset(range(34, 40))  # no output driver, no internal pull-ups
UART0 = frozenset((1, 3))  # USB serial: REPL, mpremote, esptool
# ESP32-WROVER-E: GPIO16/17 drive the module's PSRAM (clock and chip select);
# on the DevKitC-VE those header pins are not connected to anything else.
PSRAM = frozenset((16, 17))
# Header neighbours of the strapping pins and EN: a solder bridge joins them,
# so a line there must not pull the strapping pin away from its boot level
# (README, "ESP32 pins"; the bring-up checks meter each pair).
BRIDGE_RISK = {0: (4, 2), 2: (0, 15), 12: (14,), 5: (18, 17), 15: (2,)}

# Why a pin is (or is not) a good choice; shown in pinout.md.
NOTES = {
    0: "strapping: low at reset enters the ROM downloader (BOOT button)",
    1: "UART0 TX: the USB serial port (REPL, mpremote, esptool)",
    2: "strapping: must be low/floating to enter the downloader",
    3: "UART0 RX: the USB serial port",
    4: "no boot function; beside GPIO0 on J3, so only a keypad column (high at reset: rows float) goes here",
    5: "strapping (SDIO timing); toggles during boot",
    12: "strapping MTDI: high at reset selects 1.8 V flash, the board will not boot",
    13: "not strapping, quiet during boot (JTAG MTCK, unused)",
    14: "JTAG MTMS, toggles during boot: a keypad row (floats at reset: a bridge to GPIO12 keeps it low)",
    15: "strapping MTDO: silences the boot log; toggles during boot",
    16: "PSRAM on the WROVER-E: never used",
    17: "PSRAM on the WROVER-E: never used",
    34: "input-only, no internal pull: external pull-up on the carrier",
    35: "input-only, no internal pull: external pull-up on the carrier",
    36: "input-only (VP), no internal pull: external pull-up; beside EN, and high unless F3 is latched off",
    39: "input-only (VN), no internal pull: external pull-up at X3",
    18: "free, no boot function",
    19: "free, no boot function",
    21: "free, no boot function",
    22: "free, no boot function",
    23: "free, no boot function",
    25: "free, no boot function (DAC1 unused)",
    26: "free, no boot function (DAC2 unused)",
    27: "free, no boot function",
    32: "free, no boot function (32 kHz crystal not fitted on DevKitC)",
    33: "free, no boot function (32 kHz crystal not fitted on DevKitC)",
}


def header_pin(gpio):
    """'J2-15' style header position of a GPIO on the DevKitC."""
    name = "IO%d" % gpio
    for hdr, pins in (("J2", J2), ("J3", J3)):
        if name in pins:
            return "%s-%d" % (hdr, pins.index(name) + 1)
    raise ValueError("GPIO%d is not on a DevKitC header" % gpio)
