"""The camera cross-check on the loop, the camera worker thread, the emulated camera's renderer."""
