"""NFC/RFID readers over serial: protocol decoders (pure) and the port thread (pyserial)."""

PROTOCOLS = ("rdm6300", "pn532", "lines")
"""What ``[reader] protocol`` can name: RDM6300 (125 kHz EM4100), PN532 (NFC in HSU/UART
mode), or one hex UID per line."""
DEFAULT_BAUD = {"rdm6300": 9600, "pn532": 115200, "lines": 9600}
