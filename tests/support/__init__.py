"""Test doubles and wiring shared by the test suites (never installed with the product)."""
