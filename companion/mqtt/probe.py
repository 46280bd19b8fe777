"""One connection attempt to the broker, for ``companion doctor``: None when it takes the
table's login, else why not (the password is never part of the answer)."""

from __future__ import annotations

import os
import ssl
import time
from pathlib import Path

from companion.config import MqttConfig
from companion.password_file import SecretError, read_password

TIMEOUT_S = 5.0


def probe(cfg: MqttConfig, timeout: float = TIMEOUT_S) -> str | None:
    import paho.mqtt.client as mqtt

    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2,
                         client_id=f"question-block-doctor-{os.getpid()}")
    try:
        if cfg.username:
            password = read_password(Path(cfg.password_file)) if cfg.password_file else None
            client.username_pw_set(cfg.username, password)
        if cfg.tls:
            client.tls_set_context(ssl.create_default_context(cafile=cfg.ca_file or None))
    except SecretError as exc:
        return f"no password: {exc}"
    answer: list[object] = []
    client.on_connect = lambda _c, _u, _f, code, _p: answer.append(code)
    try:
        client.connect(cfg.host, cfg.port, keepalive=10)
        deadline = time.monotonic() + timeout
        while not answer and time.monotonic() < deadline:
            client.loop(timeout=0.1)
    except (OSError, ssl.SSLError) as exc:
        return f"unreachable ({exc})"
    finally:
        client.disconnect()
    if not answer:
        return f"no answer in {timeout:g} s"
    code = answer[0]
    if getattr(code, "is_failure", False):
        return f"the broker refused the login ({code})"
    return None
