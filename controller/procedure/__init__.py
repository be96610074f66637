"""The dealing procedures: transition tables, one model per game family, effects, meters."""
