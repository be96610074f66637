"""Device interfaces, the drivers for real hardware, and byte-level emulators.

Drivers report facts ("a card left the shoe, number 41, read as QH") and carry out
commands; they never decide what the facts mean for a game.
"""

import logging

logging.getLogger(__name__).addHandler(logging.NullHandler())
