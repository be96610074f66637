"""The running table: event loop, runtime (journal first, then devices), composition root."""
