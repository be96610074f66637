"""Shared test settings: deterministic hypothesis runs with no per-example deadline."""

from hypothesis import settings

settings.register_profile("shoectl", derandomize=True, deadline=None, print_blob=True)
settings.load_profile("shoectl")
