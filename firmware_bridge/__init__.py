"""Host side of the framed serial protocol spoken by the table's boards.

It knows frames, messages, links and handshakes, never cards, seats or wagers: the
message catalogue that gives messages their meaning is data handed in by the caller.
"""
