"""The tablet's web side: JSON API, WebSocket push and the table token (aiohttp)."""
