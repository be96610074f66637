"""Byte-level twins of the table's devices: the shoe, the layout board (or GPIO), the sign, USB.

Imported only by tests, by `shoectl emulate`, and by the registry when the configuration
asks for an emulated kind and the process was started with the explicit flag.
"""
