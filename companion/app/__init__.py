"""The application: the table as frontends see it (the contract, its commands and queries) and
the service that carries them out around the bank, the block, the speaker and the lever."""
