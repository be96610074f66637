"""The table controller: game rules, the dealing procedure, the journal and the wiring."""
