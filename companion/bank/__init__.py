"""The bank adapter: the coin journal in SQLite, and its single writer thread for the daemon."""

from companion.bank.bank import DB_NAME, Bank, Player
from companion.bank.store import BankUnavailable

__all__ = ["DB_NAME", "Bank", "BankUnavailable", "Player"]
