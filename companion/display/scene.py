"""What the screen shows, decided without pygame: events in, a frozen :class:`Scene` out.

The model is pure and clocked from outside (``now`` is passed in), so tests are exact. A scene
only holds what is drawn, quantised to the frames that differ (animation frame, whole seconds
of a countdown, coins pinged so far), so the screen renders when ``scene(now)`` changes and
sleeps until :meth:`DisplayModel.next_change` otherwise.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

from companion.core.coin_series import CoinSeries
from companion.core.editions.contests import Fight, Race, win_chance
from companion.core.ledger import BANK
from companion.core.lever import LAST_SECONDS
from companion.core.outcomes import Kind, Outcome
from companion.core.reasons import reason
from companion.core.state import JournalLine, StorageView, TableState
from companion.events import (
    BlockOutcome,
    CardTapped,
    Event,
    StateChanged,
    StorageChanged,
    TimerChanged,
)
from companion.i18n import Translator, translator
from companion.i18n.said import Said, words

FPS = 20
"""Frames per second while something animates."""
ANIMATION_FRAMES = 16
"""An outcome's entrance lasts this many frames, then the picture holds still."""
TIME_UP_SECONDS = 4.0
"""How long "TIME'S UP" stays after a countdown ends."""
LOG_LINES = 4
NEW_CARD_SECONDS = 5.0
"""How long "new card" stays on screen after an unknown card is tapped."""
PINGED = frozenset({Kind.COINS, Kind.SUPER_STAR})
"""Outcomes whose sound pings once per coin (a screen lights a coin per ping)."""
CHART_SECONDS = 8.0
"""At the end of a game the screen turns between the standings and the coins' chart, this long
each (the standings first)."""
EPS = 1e-9
"""Quantising time into frames and seconds allows for float rounding at the boundaries, so the
scene and :meth:`DisplayModel.next_change` agree on where a boundary lies."""


ENGLISH = translator("en")
"""The words as written (the default language of the scene's pieces)."""


def _(message: str) -> str:
    """Marks ``message`` for translation where it is written down, to be put into words
    later with the scene's language (``tr.gettext(...)``)."""
    return message


def core_words(text: str | Said | None, tr: Translator) -> str:
    """A text from the core in ``tr``'s language: a :class:`Said` put into words, plain text
    (the edition's words from its ruleset, a fixed line of the core) looked up in the
    catalog (kept as it is when the catalog does not have it)."""
    if isinstance(text, Said):
        return text.render(tr)
    return tr.gettext(text) if text else ""


def _floor(x: float) -> int:
    return math.floor(x + EPS)


def _ceil(x: float) -> int:
    return math.ceil(x - EPS)


TIME_IS_RUNNING = _("Time is running")
JOIN_STARTS = frozenset({"new game", "resume game"})
"""The table changes after which the screen offers the join code (the game is setting up)."""
SETTING_UP = frozenset({"phone link", "phone joined", "phone link off", "card", "card action",
                        "characters", "options"})
"""Changes that still set a game up: the join code stays; any other means play began."""


@dataclass(frozen=True, slots=True)
class TimerView:
    """A countdown as the screen needs it: its end on the screen's clock and its length."""

    deadline: float
    duration: float
    label: str | Said = TIME_IS_RUNNING


@dataclass(frozen=True, slots=True)
class PlayerRow:
    name: str
    balance: int
    current: bool
    colour: str
    out: bool = False
    """Bankrupt: greyed, no coins."""
    worms: int | None = None
    """Wiggly Worms: worms found (the row shows worms, not coins)."""
    in_jail: bool = False
    """The Movie: in Jail (the row says so)."""


@dataclass(frozen=True, slots=True)
class StandingRow:
    """One line of the final standings."""

    rank: int
    name: str
    score: str
    """``150 points``, ``5 worms``, ``84 coins`` or ``out``."""
    colour: str
    winner: bool
    out: bool = False
    """Bankrupt: the score says ``out``."""


@dataclass(frozen=True, slots=True)
class LogLine:
    """One coin movement: ``who`` gained ``delta`` (negative: paid), ``why`` in a few words."""

    who: str
    delta: int
    why: str
    undone: bool = False


@dataclass(frozen=True, slots=True)
class OutcomeFace:
    kind: Kind
    coins: int
    coins_shown: int
    frame: int
    player: str | None
    delta: int
    balance: int | None
    waiting: bool
    """The bank has not answered yet (who got it is not known)."""
    banked: bool
    """False when the outcome moves no coins or the bank is unavailable."""
    headline: str = ""
    instruction: str = ""
    """The edition's words: ``3 COINS!``, ``Pay the Bank 5 coins``."""
    roll: int = 0
    """The die's face, for a roll or rent."""
    payee: str | None = None
    """Who the coins go to when it is a player (utility rent's owner)."""
    held: bool = False
    """The disk refused it: shown, kept and retried, not saved yet."""
    rolls: tuple[int, ...] = ()
    """Every die of it: the Movie's red and black die, a battle's leader's and teammate's."""
    step: int = 0
    """Which one in a row: the doubles of this turn, the try out of Jail."""
    teammate: str | None = None
    """A battle: the leader's teammate (the leader is ``player``)."""
    teammate_balance: int | None = None
    tracked: bool = False
    """The bank keeps it (online, a game with coins): who it was for is worth saying even
    when it moves no coins (the Movie's rolls: doubles, Jail)."""


@dataclass(frozen=True, slots=True)
class TimerFace:
    seconds: int
    fraction: float
    """Time left as a share of the whole, in steps of whole seconds."""
    urgent: bool
    flash: bool
    time_up: bool
    label: str = ""


@dataclass(frozen=True, slots=True)
class ContestRow:
    """A player in a Boss fight or a Race: their rolls so far and where they stand."""

    name: str
    colour: str
    balance: int
    rolls: tuple[int, ...] = ()
    up: bool = False
    """Their turn in it: to fight or pass, to press the block."""
    status: str = ""
    """A word beside the rolls: ``passed``, ``fights``, ``WINS``, ``entered``, ``1st``."""
    grey: bool = False
    """Passed (a fight), not entered (a race's entries)."""
    place: int = 0
    """A race: the place decided (1 for 1st), 0 while not."""
    prize: int = 0
    """A race's prize for that place (coins from the Bank)."""
    winner: bool = False
    tied: bool = False
    """A race: in a tie being re-rolled now."""
    entered: bool = False
    """A race not started yet: entered it."""


@dataclass(frozen=True, slots=True)
class FightFace:
    """A Boss fight as the table reads it: the card's numbers, who chooses or rolls, the result."""

    number: int
    required: int
    chance: str
    """``1/2``; ``sure`` when every roll wins."""
    cost: int
    to_card: bool
    pot: int
    """Coins paid onto the card so far."""
    bonus: int
    points: int
    final: bool
    rows: tuple[ContestRow, ...]
    up: str | None = None
    """Whose choice it is: fight or pass."""
    fighter: str | None = None
    """Paid: presses the block for the roll."""
    winner: str | None = None
    got_away: bool = False


@dataclass(frozen=True, slots=True)
class RaceFace:
    """A Race (Grand Prix) as the table reads it: entries, the rolls, the places, the prizes."""

    number: int
    fee: int
    prizes: tuple[int, ...]
    points: int
    final: bool
    rematch: bool
    started: bool
    over: bool
    rows: tuple[ContestRow, ...]
    """Before the start every player who may race; then the entrants (when over: by place)."""
    roller: str | None = None
    tied: tuple[str, ...] = ()
    """Re-rolling a tie now."""
    winner: str | None = None
    rematch_due: bool = False
    """The final Race is over: its winner picks a won card for the rematch."""


@dataclass(frozen=True, slots=True)
class ChartLine:
    """One player's coins over the game, as the chart draws it."""

    name: str
    colour: str
    coins: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class ChartFace:
    """Each player's coins over the game (the "chart" screen, at its end): a line each."""

    lines: tuple[ChartLine, ...]
    low: int
    """The scale's bottom (0, or the deepest debt)."""
    high: int


@dataclass(frozen=True, slots=True)
class Scene:
    """Everything drawn on one frame; equal scenes are equal pictures."""

    screen: str  # "outcome", "table", "fight", "race", "timer", "idle", "card", "winner",
    # "join"
    title: str = ""
    players: tuple[PlayerRow, ...] = ()
    log: tuple[LogLine, ...] = ()
    outcome: OutcomeFace | None = None
    timer: TimerFace | None = None
    link: str | None = None
    """The QR code's link: the tablet's (idle), the players' join link (join)."""
    address: str | None = None
    coins: bool = True
    """False for timer-only games: no balances, no coin log."""
    mode: str | None = None
    """An armed press mode, in words ("Utility rent: Luigi pays Mario, 2 utilities")."""
    standings: tuple[StandingRow, ...] = ()
    target: int = 0
    """Wiggly Worms: the worms each player has to find."""
    hint: str = ""
    """What to do, where a press is not a die (the edition's words, beside the players)."""
    warning: str = ""
    """The bank is not saving: why, and how many presses are held (a strip on every
    screen)."""
    bowser_waits: bool = False
    """The Movie: Bowser was beaten and waits on GO until everyone has had a turn."""
    bowser_won: bool = False
    """The Movie: the game ended with Bowser's win: everyone lost."""
    board: tuple[tuple[str, int], ...] = ()
    """Gamer, Mario Kart: the coins on the board, each space's pile (oldest pile first)."""
    fight: FightFace | None = None
    """Gamer: the Boss fight open now (the "fight" screen)."""
    race: RaceFace | None = None
    """Mario Kart: the Race open now (the "race" screen)."""
    chart: ChartFace | None = None
    """The game has ended: each player's coins over it (the "chart" screen)."""
    language: str = "en"
    """The table's language: the words above are in it, and the screen's own words are put
    into it when drawn."""


@dataclass
class _Flash:
    outcome: Outcome
    at: float
    period: float
    """Seconds from one coin ping to the next in the outcome's sound."""
    start: float = 0.0
    """Seconds into the sound of the first ping."""
    headline: str | Said = ""
    instruction: str | Said = ""
    player: str | None = None
    payee: str | None = None
    balance: int | None = None
    teammate: str | None = None
    teammate_balance: int | None = None
    waiting: bool = True
    outcome_id: int | None = None
    held: bool = False


@dataclass
class DisplayModel:
    """The screen's memory: the last bank state, the outcome on show, the countdown."""

    outcome_seconds: float = 8.0
    idle_after: float | None = 600.0
    state: TableState | None = None
    link: str | None = None
    timer: TimerView | None = None
    last_activity: float | None = None
    bank_online: bool = True
    storage: StorageView = field(default_factory=StorageView)
    language: str = "en"
    """The table's language (``[table] language``): every word of the scenes is in it."""
    join_link: str | None = None
    """The players' join link of game :attr:`join_game` (None: no web, no network)."""
    join_game: int | None = None
    joining: bool = False
    """A game was just started or resumed and has not got going: the join screen shows while
    some player has no phone."""
    coins: CoinSeries | None = None
    """A game's coins over the evening, read once it ended (:meth:`set_coins`)."""
    coins_at: float = 0.0
    """When they came: the winner screen turns to the chart :data:`CHART_SECONDS` after."""
    _flash: _Flash | None = field(default=None, repr=False)
    _new_card: tuple[str, float] | None = field(default=None, repr=False)

    # -- input -----------------------------------------------------------------------------

    def apply(self, event: Event, now: float) -> None:
        """Take a daemon event (block outcome, bank change)."""
        if isinstance(event, BlockOutcome):
            self._flash = _Flash(event.outcome, now, event.ping_period, event.ping_start,
                                 event.headline, event.instruction, waiting=self.bank_online)
            self.last_activity = now
            self.joining = False
        elif isinstance(event, CardTapped):
            self.last_activity = now
            self._new_card = (event.uid, now) if event.kind == "unknown" else None
        elif isinstance(event, TimerChanged):
            view = None
            if event.deadline is not None and event.duration is not None:
                view = TimerView(event.deadline, event.duration, event.label)
            self.set_timer(view, now)
        elif isinstance(event, StorageChanged):
            self.storage = event.storage
            flash = self._flash
            if flash is not None and flash.waiting and event.storage.held:
                flash.waiting, flash.held = False, True
        elif isinstance(event, StateChanged):
            self.state = event.state
            self.last_activity = now
            if event.action in JOIN_STARTS:
                self.joining = True
            elif event.action not in SETTING_UP:
                self.joining = False  # the game got going
            flash = self._flash
            if flash is None:
                return
            last = event.state.last_outcome
            if event.action == "outcome" and flash.waiting:
                flash.outcome_id = None if last is None else last.id
                self._settle_flash(event.state)
            elif (flash.player is None and not flash.waiting and last is not None
                  and last.id == flash.outcome_id):
                self._settle_flash(event.state)  # given to a player on the tablet meanwhile

    def set_state(self, state: TableState) -> None:
        """The bank's state at start-up: shown, without counting as activity."""
        self.state = state

    def _settle_flash(self, state: TableState) -> None:
        flash = self._flash
        assert flash is not None
        flash.waiting = False
        last = state.last_outcome
        player = None if last is None else state.player(last.player_id)
        if player is not None:
            flash.player, flash.balance = player.name, player.balance
        if last is not None and "owner" in last.params:
            flash.payee = _name(state, last.params["owner"], self.tr)
        mate = None if last is None else state.player(last.params.get("teammate"))
        if mate is not None:  # a battle: the leader is the player, with a teammate
            flash.teammate, flash.teammate_balance = mate.name, mate.balance

    def set_timer(self, timer: TimerView | None, now: float) -> None:
        """Start, restart or stop (None) the countdown shown."""
        if timer is None and self.timer is not None and now >= self.timer.deadline:
            return  # it ran out: "time's up" stays on for its few seconds
        self.timer = timer
        self.last_activity = now
        if timer is not None:
            self.joining = False

    def set_link(self, link: str | None) -> None:
        self.link = link

    def set_coins(self, series: CoinSeries, now: float) -> None:
        """A game's coins over the evening (read when it ended): shown turn about with the
        standings while that game stays ended."""
        self.coins, self.coins_at = series, now

    def set_join_link(self, game: int, link: str | None) -> None:
        """The players' join link of ``game`` (None: none now)."""
        self.join_game, self.join_link = game, link

    # -- output ----------------------------------------------------------------------------

    @property
    def tr(self) -> Translator:
        return translator(self.language)

    def scene(self, now: float) -> Scene:
        """The picture for ``now``, with the bank's warning strip when it is not saving."""
        scene = self._scene(now)
        warning = warning_strip(self.storage, self.tr)
        if warning:
            scene = replace(scene, warning=warning)
        return replace(scene, language=self.language) if self.language != "en" else scene

    def _scene(self, now: float) -> Scene:
        tr = self.tr
        timer = self._timer_face(now)
        if timer is not None and (timer.urgent or timer.time_up):
            return Scene("timer", timer=timer)
        if self._new_card is not None and now - self._new_card[1] < NEW_CARD_SECONDS:
            return Scene("card", title=self._new_card[0], timer=timer)
        if self._flash is not None and now - self._flash.at < self.outcome_seconds:
            return Scene("outcome", outcome=self._outcome_face(now), timer=timer)
        if timer is not None:
            return Scene("timer", timer=timer)
        waiting = self._without_phone()
        if waiting:
            return Scene("join", title=tr.gettext("Join the game"), players=waiting,
                         link=self.join_link)
        if self._idle(now):
            return Scene("idle", title=self._title(), players=self._players(), link=self.link,
                         address=_address(self.link))
        state = self.state
        if state is not None and state.ended:
            chart = self._chart()
            if chart is not None and _floor((now - self.coins_at) / CHART_SECONDS) % 2 == 1:
                return Scene("chart", title=tr.gettext("Coins over the game"), chart=chart)
            return Scene("winner", title=_winner_title(state, tr),
                         standings=_standing_rows(state, tr), bowser_won=state.bowser_won)
        if state is not None and state.fight is not None:
            return Scene("fight", title=tr.gettext("BOSS {n}").format(
                n=state.fight.card.number), fight=fight_face(state, state.fight, tr))
        if state is not None and state.race is not None:
            return Scene("race", title=tr.gettext("GRAND PRIX {n}").format(
                n=state.race.card.number), race=race_face(state, state.race, tr))
        coins = state is None or state.game.bank
        mode = state.mode if state is not None else None
        doubles = state is not None and state.doubles > 0  # the Movie: "doubles 1 of 3"
        return Scene("table", title=self._title(), players=self._players(),
                     log=self._log() if coins else (), coins=coins,
                     mode=None if mode is None or (mode.default and not doubles)
                     else core_words(mode.text, tr),
                     target=_worm_target(state),
                     hint="" if mode is None else core_words(mode.hint, tr),
                     bowser_waits=state is not None and state.bowser_waits,
                     board=_board(state) if coins else ())

    def next_change(self, now: float) -> float | None:
        """The earliest later time at which :meth:`scene` may differ; None: only on input."""
        times: list[float] = []
        flash = self._flash
        if flash is not None and now - flash.at < self.outcome_seconds:
            frame = _floor((now - flash.at) * FPS)
            if frame < ANIMATION_FRAMES:
                times.append(_next_step(now, flash.at, 1 / FPS, frame + 1))
            if flash.outcome.kind in PINGED:
                first = flash.at + flash.start
                if now < first:
                    times.append(first)
                else:
                    pinged = _floor((now - first) / flash.period) + 1
                    if pinged < flash.outcome.coins:
                        times.append(_next_step(now, first, flash.period, pinged))
            times.append(flash.at + self.outcome_seconds)
        if self.timer is not None:
            deadline = self.timer.deadline
            left = deadline - now
            if left > 0:
                step = 0.5 if left <= LAST_SECONDS else 1.0
                ticks = max(0, _ceil(left / step) - 1)  # whole steps left at the next change
                while ticks > 0 and deadline - ticks * step <= now:
                    ticks -= 1
                times.append(deadline - ticks * step)
            elif now < deadline + TIME_UP_SECONDS:
                times.append(min(_next_step(now, deadline, 0.5, _floor(-left * 2) + 1),
                                 deadline + TIME_UP_SECONDS))
        if self._new_card is not None and now - self._new_card[1] < NEW_CARD_SECONDS:
            times.append(self._new_card[1] + NEW_CARD_SECONDS)
        if (self.state is not None and self.state.ended and not self._idle(now)
                and self._chart() is not None):
            turns = _floor((now - self.coins_at) / CHART_SECONDS) + 1
            times.append(_next_step(now, self.coins_at, CHART_SECONDS, turns))
        if self.idle_after is not None and self.last_activity is not None:
            goes_idle = self.last_activity + self.idle_after
            if goes_idle > now:
                times.append(goes_idle)
        later = [t for t in times if t > now]
        return min(later) if later else None

    # -- pieces ----------------------------------------------------------------------------

    def _idle(self, now: float) -> bool:
        if self.state is None or self.last_activity is None:
            return True
        return self.idle_after is not None and now - self.last_activity >= self.idle_after

    def _without_phone(self) -> tuple[PlayerRow, ...]:
        """While a game just started (or resumed) waits for its phones, with a join link for
        it: the players who have no phone yet; else none (no join screen)."""
        state = self.state
        if (not self.joining or state is None or state.ended or self.join_link is None
                or self.join_game != state.game.id):
            return ()
        return tuple(PlayerRow(p.name, p.balance, p.current, p.colour, p.out)
                     for p in state.players if not p.linked)

    def _chart(self) -> ChartFace | None:
        """The ended game's coins over the evening, when read and worth a picture (a game
        that keeps coins, with at least one move that changed them)."""
        state, series = self.state, self.coins
        if (state is None or series is None or series.game_id != state.game.id
                or not state.game.bank or len(series.points) < 2):
            return None
        lines = []
        for line in series.lines():
            player = state.player(line.player)
            if player is not None:
                lines.append(ChartLine(player.name, player.colour, line.coins))
        if not lines:
            return None
        return ChartFace(tuple(lines), min(0, *(min(c.coins) for c in lines)),
                         max(1, *(max(c.coins) for c in lines)))

    def _title(self) -> str:
        state = self.state
        tr = self.tr
        if state is None:
            return tr.gettext("Question Block")
        current = state.current
        if current and state.game.simultaneous:  # everyone plays; one slides the lever
            return tr.gettext("{name} slides the lever").format(name=current.name)
        if current:
            return tr.gettext("{name}'s turn").format(name=current.name)
        return tr.gettext(state.game.name)

    def _players(self) -> tuple[PlayerRow, ...]:
        if self.state is None:
            return ()
        return tuple(PlayerRow(p.name, p.balance, p.current, p.colour, p.out, p.worms,
                               p.in_jail and not p.out)
                     for p in self.state.players)

    def _log(self) -> tuple[LogLine, ...]:
        if self.state is None:
            return ()
        lines = []
        for line in self.state.recent[:LOG_LINES]:
            lines.extend(log_lines(line, self.state, self.tr))
        return tuple(lines[:LOG_LINES])

    def _outcome_face(self, now: float) -> OutcomeFace:
        flash = self._flash
        assert flash is not None
        outcome = flash.outcome
        elapsed = now - flash.at
        shown = 0
        if outcome.kind in PINGED and elapsed >= flash.start:
            shown = min(outcome.coins, _floor((elapsed - flash.start) / flash.period) + 1)
        tracked = self.bank_online and (self.state is None or self.state.game.bank)
        banked = tracked and outcome.coin_delta != 0
        tr = self.tr
        return OutcomeFace(outcome.kind, outcome.coins, shown,
                           min(ANIMATION_FRAMES, _floor(elapsed * FPS)), flash.player,
                           outcome.coin_delta if banked else 0, flash.balance,
                           flash.waiting, banked, core_words(flash.headline, tr),
                           core_words(flash.instruction, tr),
                           outcome.rolls[-1] if outcome.rolls else 0, flash.payee,
                           held=flash.held, rolls=outcome.rolls, step=outcome.step,
                           teammate=flash.teammate, teammate_balance=flash.teammate_balance,
                           tracked=tracked)

    def _timer_face(self, now: float) -> TimerFace | None:
        timer = self.timer
        if timer is None:
            return None
        left = timer.deadline - now
        if left <= 0:
            if left > -TIME_UP_SECONDS:
                return TimerFace(0, 0.0, True, _floor(-left * 2) % 2 == 0, True)
            return None
        seconds = _ceil(left)
        urgent = left <= LAST_SECONDS
        flash = urgent and _ceil(left * 2) % 2 == 0
        return TimerFace(seconds, min(1.0, seconds / max(timer.duration, 1e-9)), urgent, flash,
                         False, core_words(timer.label, self.tr))


def _chance(required: int, tr: Translator = ENGLISH) -> str:
    chance = win_chance(required)
    # NOTE: a Boss fight's chance when every roll wins
    return tr.gettext("sure") if chance == 1 else str(chance)


def _name(state: TableState, party: object, tr: Translator = ENGLISH) -> str:
    """A player's name as typed ("the Bank", "player 9" in the screen's language)."""
    return words(state.name_of(party), tr)


def _row(state: TableState, player: int, tr: Translator = ENGLISH,
         **kwargs: object) -> ContestRow:
    found = state.player(player)
    return ContestRow(_name(state, player, tr), found.colour if found is not None else "",
                      found.balance if found is not None else 0,
                      **kwargs)  # type: ignore[arg-type]


def fight_face(state: TableState, fight: Fight, tr: Translator = ENGLISH) -> FightFace:
    """The open Boss fight: everyone who may fight (from the flipper, to the left) with their
    rolls, who passed, whose choice or roll it is, and how it ended."""
    rows = []
    for pid in fight.order:
        rolls = tuple(r for p, r in fight.rolls if p == pid)
        status = (tr.gettext("WINS") if pid == fight.winner
                  else tr.gettext("fights") if pid == fight.fighter
                  else tr.gettext("passed") if pid in fight.passed else "")
        rows.append(_row(state, pid, tr, rolls=rolls, up=pid in (fight.up, fight.fighter),
                         status=status, grey=pid in fight.passed, winner=pid == fight.winner))
    card = fight.card

    def name(party: object) -> str:
        return _name(state, party, tr)

    return FightFace(card.number, card.required, _chance(card.required, tr), card.cost,
                     card.to_card, fight.pot, card.bonus, card.points, fight.final, tuple(rows),
                     None if fight.up is None else name(fight.up),
                     None if fight.fighter is None else name(fight.fighter),
                     None if fight.winner is None else name(fight.winner), fight.got_away)


def race_face(state: TableState, race: Race, tr: Translator = ENGLISH) -> RaceFace:
    """The open Race: before the start who entered; then each entrant's rolls, the places
    decided, who presses next and the tie being re-rolled; when over, the places with their
    prizes."""
    now = race.standing
    card = race.card
    paid = dict(race.prizes())
    if not race.started:
        rows = tuple(_row(state, pid, tr,
                          status=tr.gettext("entered") if pid in race.entrants else "",
                          entered=pid in race.entrants, grey=pid not in race.entrants)
                     for pid in race.order)
    else:
        entrants = [p for p in race.order if p in race.entrants]
        if race.over:
            entrants.sort(key=lambda p: now.places.index(p) if p in now.places else 99)
        rows_: list[ContestRow] = []
        for pid in entrants:
            place = now.places.index(pid) + 1 if pid in now.places else 0
            rolls = tuple(r for p, r in zip(race.players_rolled, race.rolls, strict=True)
                          if p == pid)
            status = (ordinal(place, tr) if place
                      else tr.gettext("re-roll") if pid in now.tied else "")
            rows_.append(_row(state, pid, tr, rolls=rolls, up=pid == now.roller,
                              status=status,
                              tied=not place and pid in now.tied,
                              place=place, prize=paid.get(pid, 0),
                              winner=race.over and place == 1))
        rows = tuple(rows_)
    due = state.next_card is not None and state.next_card.rematch_due
    return RaceFace(card.number, card.fee, card.prizes, card.points, race.final, race.rematch,
                    race.started, race.over, rows,
                    None if now.roller is None else _name(state, now.roller, tr),
                    tuple(_name(state, p, tr) for p in now.tied),
                    None if race.winner is None else _name(state, race.winner, tr),
                    rematch_due=race.over and due)


PLACES = (_("1st"), _("2nd"), _("3rd"), _("4th"), _("5th"), _("6th"))
"""A race's places in words, each a message (many languages write ``1.``)."""


def ordinal(n: int, tr: Translator = ENGLISH) -> str:
    """``1st``, ``2nd``, ``3rd``, ``4th``."""
    if 1 <= n <= len(PLACES):
        return tr.gettext(PLACES[n - 1])
    suffix = {1: "st", 2: "nd", 3: "rd"}.get(n % 10 if n > 20 else n, "th")
    return f"{n}{suffix}"


def log_lines(line: JournalLine, state: TableState,
              tr: Translator = ENGLISH) -> list[LogLine]:
    """A journal entry as seen by the players it touched (a payment between two players is
    two lines: one pays, one gets)."""
    entry = line.entry
    why = core_words(reason(entry, line.outcome_kind), tr)
    lines = []
    for party, sign in ((entry.payee, 1), (entry.payer, -1)):
        if party != BANK:
            lines.append(LogLine(_name(state, party, tr), sign * entry.amount, why,
                                 line.undone))
    return lines


def _winner_title(state: TableState, tr: Translator = ENGLISH) -> str:
    if state.bowser_won:
        return tr.gettext("BOWSER WINS")
    names = [_name(state, p, tr) for p in state.winners]
    if not names:
        return tr.gettext("GAME OVER")
    if len(names) == 1:
        return tr.gettext("{name} wins!").format(name=names[0])
    return tr.gettext("{names} share the win!").format(names=" & ".join(names))


def _standing_rows(state: TableState, tr: Translator = ENGLISH) -> tuple[StandingRow, ...]:
    rows = []
    for s in state.standings:
        player = state.player(s.player)
        if s.total is not None:
            score = tr.ngettext("{n} point", "{n} points", s.total).format(n=s.total)
        elif s.worms is not None:
            score = tr.ngettext("{n} worm", "{n} worms", s.worms).format(n=s.worms)
        elif s.out:
            score = tr.gettext("out")
        else:
            score = tr.ngettext("{n} coin", "{n} coins", s.coins).format(n=s.coins)
        rows.append(StandingRow(s.rank, _name(state, s.player, tr), score,
                                player.colour if player is not None else "",
                                s.player in state.winners,
                                out=s.total is None and s.worms is None and s.out))
    return tuple(rows)


def warning_strip(storage: StorageView, tr: Translator = ENGLISH) -> str:
    """The bank's warning in a few words, for the strip along the bottom ('' when all is
    well): why it is not saving and the presses held."""
    if storage.ok and not storage.held:
        return ""
    problem = core_words(storage.problem, tr) if storage.problem else tr.gettext("saving")
    head = problem.split(":")[0].split(" (")[0]
    if storage.held:
        return tr.ngettext("NOT SAVED YET · {why} · {n} press held",
                           "NOT SAVED YET · {why} · {n} presses held",
                           storage.held).format(why=head, n=storage.held)
    return tr.gettext("NOT SAVED YET · {why}").format(why=head)


def _board(state: TableState | None) -> tuple[tuple[str, int], ...]:
    """The board's piles worth showing (a pile of no coins is no pile)."""
    if state is None:
        return ()
    return tuple((space, coins) for space, coins in state.board if coins > 0)


def _worm_target(state: TableState | None) -> int:
    return 0 if state is None or state.game.worms is None else state.game.worms


def _next_step(now: float, base: float, step: float, k: int) -> float:
    """``base + k * step``, moved on by whole steps until it lies after ``now`` (float rounding
    can put the computed boundary a hair at or before ``now``)."""
    t = base + k * step
    while t <= now:
        k += 1
        t = base + k * step
    return t


def _address(link: str | None) -> str | None:
    """The link without its token: what a person could type."""
    return link.split("#", 1)[0].rstrip("/") if link else None
