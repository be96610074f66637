"""Game rules as pure functions over integer cents: standard library only, no I/O."""
