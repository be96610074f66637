"""Parts of the table model that several games share: shoe, wagers, meters, outputs."""
