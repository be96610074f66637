"""Blackjack and Spanish 21: its states, transition rows, model and parts."""
