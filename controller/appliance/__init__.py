"""appliance."""
