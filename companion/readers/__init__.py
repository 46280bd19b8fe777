"""NFC/RFID readers over serial: protocol decoders (pure) and the port thread (pyserial)."""
