"""What the journal tells the pit and surveillance: pure analysis of records, never the game."""
