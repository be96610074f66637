"""The `shoectl` commands: argument parsing and exit codes only."""
