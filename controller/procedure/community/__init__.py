"""The community-card multi-hand blackjack: its states, transition rows, model and parts."""
