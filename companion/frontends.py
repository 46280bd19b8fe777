"""Which frontends a config turns on, wired to each other: the composition root for
``companion run`` and the demo. Each frontend gets the table (when the daemon starts it) and
what it shows of another frontend (the screen shows the web's link; the web shows the card
reader's port), nothing else."""

from __future__ import annotations

from collections.abc import Callable

from companion.app.contract import Frontend
from companion.config import Config


def from_config(config: Config, *, on_quit: Callable[[], None] | None = None,
                any_port_if_taken: bool = False) -> list[Frontend]:
    """The web page, the screen, Home Assistant's MQTT and the card reader, in start order
    (the reader starts last and stops first, so no tap comes in while the last writes
    finish)."""
    from companion.cards import CardReader

    cards = CardReader(config.reader)
    frontends: list[Frontend] = []
    web = None
    if config.web.enabled:
        from companion.web.server import WebFrontend

        web = WebFrontend(config.web, config.data_dir, reader=cards,
                          any_port_if_taken=any_port_if_taken,
                          language=config.table.language)
        frontends.append(web)
    if config.display.enabled:
        from companion.display.frontend import ScreenFrontend

        frontends.append(ScreenFrontend(config.display, link=web.lan_link if web else None,
                                        join=web.join_link if web else None,
                                        on_quit=on_quit, language=config.table.language))
    if config.mqtt.enabled:
        from companion.mqtt.frontend import HomeFrontend

        frontends.append(HomeFrontend(config.mqtt, language=config.table.language,
                                      link=web.page_link if web else None))
    frontends.append(cards)
    return frontends
