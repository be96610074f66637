"""What every procedure is built on: the machine, the effects, the round record."""
