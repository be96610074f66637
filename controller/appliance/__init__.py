"""The Pi as an appliance: installer, software check (R16), watchdog, self-test (R2)."""
