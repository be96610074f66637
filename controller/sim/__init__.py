"""`shoectl simulate`: the emulated rig, the auto-dealer and bots, the terminal table view."""
