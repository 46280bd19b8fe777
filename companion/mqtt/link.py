"""One connection to the broker, kept up: reconnecting with backoff, its last will saying
"offline", the retained topics republished on every connect, stale discovery configs cleared,
and the buttons' commands handed on. Nothing here is awaited by the table: the frontend hands
messages over and returns at once."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import random
import ssl
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import aiomqtt

from companion.exc import shown
from companion.mqtt.topics import COMMANDS, OFFLINE, ONLINE, PRESS, Topics
from companion.password_file import SecretError, read_password

log = logging.getLogger(__name__)

FIRST_WAIT_S = 1.0
LONGEST_WAIT_S = 60.0
"""Backoff after a lost or failed connection: 1 s, doubling, at most a minute."""
REFUSED_WAIT_S = 300.0
"""After the broker refused the login: the table tries again this seldom (a fixed password
file is picked up then), and logs the refusal once."""
TIMEOUT_S = 10.0
KEEPALIVE_S = 30
MAX_EVENTS = 200
"""Events waiting for a slow broker; older ones give way (the state is retained anyway)."""
CLOSE_S = 1.0
"""A clean stop's wait for the queue to be sent, and then for "offline"."""
TOPIC_SHOWN = 120
"""A topic heard is logged cut to this length: a stranger's may be 64 KB long."""
REFUSED_CODES = {4, 5, 134, 135}
"""CONNACK codes of a refused login: MQTT 3.1.1's 4 and 5, MQTT 5's 134 and 135."""


@dataclass(frozen=True, slots=True)
class Broker:
    """Where and how to connect (the password is read from its file at each connect)."""

    host: str
    port: int
    tls: bool = False
    ca_file: str = ""
    username: str = ""
    password_file: str = ""

    @property
    def where(self) -> str:
        return f"{self.host}:{self.port}"


class BrokerLink:
    """Keeps one connection to ``broker`` while :meth:`run` runs. :meth:`retain` and
    :meth:`send` queue messages (sent in order once connected; a retained topic queued twice
    goes once, with its latest payload); ``on_command`` gets a button's name."""

    def __init__(self, broker: Broker, topics: Topics, *, discovery: bool,
                 on_command: Callable[[str], None],
                 on_connect: Callable[[], None] = lambda: None) -> None:
        self.broker = broker
        self.topics = topics
        self.discovery = discovery
        self.on_command = on_command
        self.on_connect = on_connect
        self.retained: dict[str, str] = {}
        """Every retained topic we keep on the broker, with its payload."""
        self.connected = False
        self.attempts = 0
        """Connection attempts made (a refused login makes one per :data:`REFUSED_WAIT_S`)."""
        self.problem: str | None = None
        """Why the last attempt failed (None: connected, or not tried yet)."""
        self.retry_in = 0.0
        self.dropped = 0
        """Events dropped while not connected (or beyond :data:`MAX_EVENTS`)."""
        self.ignored = 0
        """Command messages ignored: retained ones, unknown payloads."""
        self._queue: OrderedDict[object, tuple[str, str, bool]] = OrderedDict()
        self._events = 0
        self._sequence = 0
        self._wake = asyncio.Event()
        self._client: aiomqtt.Client | None = None
        self._said: str | None = None

    # -- what the frontend hands over ----------------------------------------------------

    def retain(self, topic: str, payload: str) -> None:
        """Keep ``payload`` on ``topic`` (retained); sent now if it changed."""
        if self.retained.get(topic) == payload:
            return
        self.retained[topic] = payload
        self._queue_retained(topic)

    def forget(self, topic: str) -> None:
        """Clear a retained topic (an empty payload: Home Assistant removes the entity)."""
        if self.retained.pop(topic, None) is not None:
            self._queue_retained(topic)

    def send(self, topic: str, payload: str) -> None:
        """Send an event once (not retained); dropped while not connected."""
        if not self.connected:
            self.dropped += 1
            return
        if self._events >= MAX_EVENTS:
            oldest = next(k for k in self._queue if isinstance(k, int))
            del self._queue[oldest]
            self._events -= 1
            self.dropped += 1
        self._sequence += 1
        self._queue[self._sequence] = (topic, payload, False)
        self._events += 1
        self._wake.set()

    def _queue_retained(self, topic: str) -> None:
        if ("r", topic) not in self._queue:
            self._queue[("r", topic)] = (topic, "", True)
            self._wake.set()

    # -- the connection ------------------------------------------------------------------

    async def run(self) -> None:
        """Connect, serve, and reconnect with backoff until cancelled."""
        wait = FIRST_WAIT_S
        while True:
            self.attempts += 1
            refused = False
            try:
                await self._serve()
            except aiomqtt.MqttCodeError as exc:
                refused = _code(exc) in REFUSED_CODES
                if refused:
                    self._failed(f"the broker refused the login of user "
                                 f"{self.broker.username!r} ({exc})",
                                 "check [mqtt] username and password_file")
                else:
                    self._failed(f"the broker said no ({exc})")
            except (aiomqtt.MqttError, OSError) as exc:
                self._failed(f"{'lost' if self.connected else 'unreachable'} ({exc})")
            except SecretError as exc:
                refused = True
                self._failed(f"no password ({exc})", "see [mqtt] password_file")
            except BaseException:
                self._down()
                raise
            if self._down():
                wait = FIRST_WAIT_S  # it was up: the first retry comes soon
            self.retry_in = REFUSED_WAIT_S if refused else wait * random.uniform(0.8, 1.2)
            log.debug("MQTT: trying %s again in %.1f s", self.broker.where, self.retry_in)
            await asyncio.sleep(self.retry_in)
            if not refused:
                wait = min(LONGEST_WAIT_S, wait * 2)

    def _failed(self, problem: str, hint: str = "") -> None:
        """Log a problem once: an outage (lost, then unreachable until it is back) is one
        warning, a refused login one error; the rest is debug. Never the password."""
        kind = "refused" if hint else "down"
        self.problem = problem
        line = f"MQTT: {self.broker.where}: {problem}" + (f"; {hint}" if hint else "") + \
            "; the table plays on without it, and it is tried again"
        if kind != self._said:
            (log.error if hint else log.warning)("%s", line)
            self._said = kind
        else:
            log.debug("%s", line)

    def _down(self) -> bool:
        """Forget the connection and the events meant for it; True if it was up."""
        was = self.connected
        self.connected = False
        self._client = None
        for key in [k for k in self._queue if isinstance(k, int)]:
            del self._queue[key]
            self.dropped += 1
        self._events = 0
        return was

    async def _serve(self) -> None:
        broker, topics = self.broker, self.topics
        password = read_password(Path(broker.password_file)) if broker.password_file else None
        async with aiomqtt.Client(
                broker.host, broker.port, username=broker.username or None,
                password=password, identifier=f"{topics.node}-{os.getpid()}",
                will=aiomqtt.Will(topics.status, OFFLINE, qos=1, retain=True),
                tls_context=_tls(broker), timeout=TIMEOUT_S, keepalive=KEEPALIVE_S,
                clean_session=True) as client:
            self._client = client
            self.connected, self.problem = True, None
            if self._said not in (None, "connected"):
                log.info("MQTT: connected to %s again after %d attempts", broker.where,
                         self.attempts)
            else:
                log.info("MQTT: connected to %s", broker.where)
            self._said = "connected"
            self.attempts = 0
            await client.subscribe(topics.commands, qos=1)
            if self.discovery:
                await client.subscribe(topics.configs, qos=1)
            await client.publish(topics.status, ONLINE, qos=1, retain=True)
            for topic in self.retained:  # the broker may have lost them (a restart)
                self._queue_retained(topic)
            self.on_connect()
            jobs = {asyncio.ensure_future(self._send_all(client)),
                    asyncio.ensure_future(self._receive_all(client))}
            try:  # until either fails: the connection is gone
                done, _ = await asyncio.wait(jobs, return_when=asyncio.FIRST_COMPLETED)
                for job in done:
                    job.result()
                raise aiomqtt.MqttError("the connection ended")
            finally:
                for job in jobs:
                    job.cancel()
                await asyncio.gather(*jobs, return_exceptions=True)

    async def _receive_all(self, client: aiomqtt.Client) -> None:
        async for message in client.messages:
            self._heard(message)

    async def _send_all(self, client: aiomqtt.Client) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            await self._send_queued(client)

    async def _send_queued(self, client: aiomqtt.Client) -> None:
        """Send the queue in order until it is empty."""
        while self._queue:
            _key, (topic, payload, retain) = self._queue.popitem(last=False)
            if retain:
                payload = self.retained.get(topic, "")
            else:
                self._events -= 1
            await client.publish(topic, payload, qos=1, retain=retain)

    def _heard(self, message: aiomqtt.Message) -> None:
        topic = message.topic.value
        if self.topics.is_config(topic):
            if message.payload and topic not in self.retained:  # stale: from an older game
                log.info("MQTT: removing a stale entity (%s)", shown(topic, TOPIC_SHOWN))
                self._queue[("r", topic)] = (topic, "", True)
                self._wake.set()
            return
        name = topic.rsplit("/", 1)[-1]
        if name not in COMMANDS or message.retain or message.payload not in (PRESS,
                                                                             PRESS.encode()):
            self.ignored += 1
            log.debug("MQTT: ignored %s (retained: %s)", shown(topic, TOPIC_SHOWN), message.retain)
            return
        self.on_command(name)

    async def close(self) -> None:
        """Send what is still queued (a stop just after a move, or just after connecting,
        leaves the last state and the configs on the broker), then say "offline" (a clean
        disconnect sends no last will); each step at most CLOSE_S."""
        client = self._client
        if client is not None and self.connected:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._send_queued(client), CLOSE_S)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(client.publish(self.topics.status, OFFLINE, qos=1,
                                                      retain=True), CLOSE_S)

    def status(self) -> str:
        if self.connected:
            return f"mqtt {self.broker.where}"
        if self.problem is None:
            return f"mqtt connecting to {self.broker.where}"
        return f"mqtt {self.broker.where} down: {self.problem}"


def _code(exc: aiomqtt.MqttCodeError) -> int:
    rc = exc.rc
    return int(getattr(rc, "value", rc)) if rc is not None else -1


def _tls(broker: Broker) -> ssl.SSLContext | None:
    if not broker.tls:
        return None
    return ssl.create_default_context(cafile=broker.ca_file or None)
