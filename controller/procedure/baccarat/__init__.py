"""Midi Baccarat: its states, transition rows, model and parts."""
