"""Roulette: its states, transition rows, model and parts."""
