"""Sound output: the sound library, the backends (simpleaudio, pygame, null) and the speaker."""
