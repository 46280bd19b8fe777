"""GPIO adapters (gpiozero): pin factories and the devices wired to the Pi."""
