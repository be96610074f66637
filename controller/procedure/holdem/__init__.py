"""Texas Hold'em Bonus: its states, transition rows, model and parts."""
