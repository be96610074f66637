"""Card recognition: a frame in, the cards in it out. Pure computation, no camera I/O."""
