"""Byte-level twins of the table's devices, and in-process fakes of the driver interfaces.

Imported only by tests, by `shoectl emulate`, and by the registry when the configuration
asks for an emulated kind and the process was started with the explicit flag.
"""
