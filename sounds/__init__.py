"""Our own generated sounds (WAV files) and the script that makes them."""
