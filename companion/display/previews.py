"""``companion screens``: every screen type at every size preset, as PNG files.

The scenes come from the real :class:`DisplayModel` fed with made-up game states, so a preview
is exactly what the panel would show for that moment; ``language`` (a code of
:data:`companion.i18n.LANGUAGES`) is the table's language the words are in.
"""

from __future__ import annotations

import os
from dataclasses import replace
from functools import partial
from pathlib import Path

from companion.core.coin_series import CoinPoint, CoinSeries
from companion.core.editions import editions
from companion.core.editions.contests import BossCard, Fight, PrixCard, Race
from companion.core.editions.scoring import Seat, standings, winners
from companion.core.ledger import BANK, Entry, EntryKind
from companion.core.outcomes import Kind, Outcome
from companion.core.state import (
    GameView,
    JournalLine,
    ModeView,
    NextCard,
    OutcomeView,
    PlayerView,
    StorageView,
    TableState,
)
from companion.display import SIZES
from companion.display.scene import (
    ANIMATION_FRAMES,
    CHART_SECONDS,
    FPS,
    DisplayModel,
    Scene,
    TimerView,
    _,
)
from companion.events import BlockOutcome, CardTapped, StateChanged, StorageChanged

Move = (tuple[int, int, int, EntryKind, str, str | None, int | None]
        | tuple[int, int, int, EntryKind, str, str | None, int | None, str])
"""A coin movement for the log: payer, payee, amount, kind, note, the outcome's kind, undone
by, and the board's space for a drop or a scoop."""
CELEBRATION_MOVES: tuple[Move, ...] = (
    (BANK, 2, 3, EntryKind.BLOCK, "", "coins", None),
    (3, BANK, 5, EntryKind.BLOCK, "", "bowser", None),
    (1, 3, 4, EntryKind.TRANSFER, "rent", None, None),
    (BANK, 4, 2, EntryKind.PASS_GO, "passed GO", None, None),
    (1, BANK, 10, EntryKind.BLOCK, "", "game_over", 9))
MOVIE_MOVES: tuple[Move, ...] = (
    (3, BANK, 1, EntryKind.TOLL, "Bowser's toll", None, None),
    (BANK, 1, 2, EntryKind.BLOCK, "", "battle_won", None),
    (BANK, 3, 2, EntryKind.BLOCK, "", "battle_won", None),
    (BANK, 4, 5, EntryKind.BLOCK, "", "super_star", None),
    (2, BANK, 4, EntryKind.BLOCK, "", "piranha", None))
"""A Movie game's coin log: a toll, a won battle (both collect), a Super Star, a Piranha
Plant."""
GAMER_MOVES: tuple[Move, ...] = (
    (BANK, 1, 4, EntryKind.BLOCK, "", "coins", None),
    (2, BANK, 3, EntryKind.DROP, "", None, None, "Bowser's Castle"),
    (3, BANK, 1, EntryKind.DROP, "", None, None, "Bowser's Castle"),
    (1, BANK, 1, EntryKind.DROP, "", None, None, "Coin Block"),
    (BANK, 3, 2, EntryKind.SCOOP, "", None, None, "Warp Pipe"))
"""A Gamer game's coin log: a Coin Block, coins dropped on the board and a pile scooped up
(the last item: the space)."""
GAMER_BOARD: tuple[tuple[str, int], ...] = (("Bowser's Castle", 4), ("Coin Block", 1),
                                              ("Acorn Plains", 2))
SAMPLE_LINK = "http://192.168.1.23:8080/#token=Zm9yLXRoZS10YWJsZS1vbmx5LXNhbXBsZQ"
SAMPLE_JOIN_LINK = "http://192.168.1.23:8080/join#code=1-Zm9yLXRoZS10YWJs"
"""A join link of game 1 as the web makes it (its code: the game, then 16 characters)."""
NAMES = ("Mario", "Luigi", "Peach", "Yoshi", "Toad", "Daisy")
COLOURS = ("#e52521", "#43b047", "#f497c0", "#6cc24a", "#2f5fd0", "#f08c00")


def sample_state(players: int = 4, current: int = 1, balances: tuple[int, ...] = (),
                 outcome: Outcome | None = None, outcome_player: int | None = None,
                 outcome_id: int = 7, edition: str = "celebration", *,
                 params: dict[str, int] | None = None, out: tuple[int, ...] = (),
                 worms: tuple[int, ...] = (), points: tuple[tuple[int, int], ...] = (),
                 ended: bool = False, mode: ModeView | None = None,
                 jailed: tuple[int, ...] = (), bowser_waits: bool = False,
                 bowser_won: bool = False, doubles: int = 0,
                 moves: tuple[Move, ...] = (),
                 board: tuple[tuple[str, int], ...] = ()) -> TableState:
    """A made-up table of the shape :meth:`Bank.state` returns (players' ids are 1..n), by the
    edition's own rules (its name, what it counts, who wins); ``moves``: the coin log, oldest
    first (else a Celebration game's)."""
    rules = editions()[edition]
    money = balances or (32, 27, -3, 41, 18, 30)[:players]
    moves = moves or CELEBRATION_MOVES
    recent = tuple(
        JournalLine(Entry(i, 1, 0.0, payer, payee, amount, kind, note,
                          space=space[0] if space else None), undone_by, why)
        for i, (payer, payee, amount, kind, note, why, undone_by, *space) in enumerate(moves, 1)
        if all(p == BANK or p <= players for p in (payer, payee)))
    found = worms or ((0,) * players if rules.worms is not None else ())
    seats = [Seat(i + 1, money[i], out.index(i + 1) + 1 if i + 1 in out else None,
                  *(points[i] if points else (0, 0)), found[i] if found else 0)
             for i in range(players)]
    last = None
    if outcome is not None:
        texts = rules.find_mode(outcome.mode) or rules.default_mode
        last = OutcomeView(outcome_id, 1, 0.0, outcome, "button", outcome_player, None,
                           params or {}, texts.headline(outcome), texts.instruction(outcome),
                           texts.describe(outcome))
    return TableState(
        game=GameView(1, edition, rules.name, rules.default_mode.moves_coins, rules.coins,
                      worms=None if rules.worms is None else rules.worms.value),
        players=tuple(PlayerView(i + 1, NAMES[i], COLOURS[i], i, money[i], i + 1 == current,
                                 None, out=i + 1 in out,
                                 points=points[i][0] if points else None,
                                 cards=points[i][1] if points else None,
                                 worms=found[i] if found else None,
                                 in_jail=i + 1 in jailed)
                      for i in range(players)),
        current_player=current or None,
        last_outcome=last,
        unassigned=(),
        recent=recent if rules.coins else (),
        ended=ended,
        winners=winners(rules, seats) if ended and not bowser_won else (),
        standings=standings(rules, seats),
        mode=mode or ModeView(rules.default_mode.id, rules.default_mode.name, True,
                              text=rules.default_mode.name, hint=rules.default_mode.hint),
        doubles=doubles,
        bowser_waits=bowser_waits,
        bowser_won=bowser_won,
        board=board,
    )


def _outcome_scene(outcome: Outcome, delta: int, *, player: int | None = 2,
                   seconds: float = 2.5, edition: str = "celebration",
                   params: dict[str, int] | None = None,
                   held: StorageView | None = None, ping_start: float | None = None,
                   jailed: tuple[int, ...] = (), language: str = "en") -> Scene:
    balances = (32, 27 + delta, -3, 41)
    if params is not None and "teammate" in params:  # a battle: leader and teammate collect
        balances = tuple(b + (delta if i + 1 in (params["leader"], params["teammate"]) else 0)
                         for i, b in enumerate((32, 27, -3, 41)))
    mode = editions()[edition].find_mode(outcome.mode) or editions()[edition].default_mode
    if ping_start is None:
        ping_start = 0.2 if outcome.mode in ("coin_block", "item_box") else 0.0
    model = DisplayModel(idle_after=None, language=language)
    model.apply(BlockOutcome(1, outcome, 0.0, "button", True, 0.30, ping_start,
                             mode.headline(outcome), mode.instruction(outcome),
                             mode.describe(outcome)), 0.0)
    state = sample_state(current=player or 0, balances=balances, outcome=outcome,
                         outcome_player=player, edition=edition, params=params, jailed=jailed)
    if held is None:
        model.apply(StateChanged("outcome", "", state), 0.0)
    else:  # the disk refused it: the bank's state stays as it was, the press is held
        model.apply(StateChanged("transfer", "", sample_state(balances=balances)), 0.0)
        model.apply(StorageChanged("press not saved yet", held), 0.1)
    return model.scene(seconds)


def _still(state: TableState, storage: StorageView | None = None,
           language: str = "en") -> Scene:
    model = DisplayModel(idle_after=None, language=language)
    model.apply(StateChanged("transfer", "", state), 0.0)
    if storage is not None:
        model.apply(StorageChanged("press not saved yet", storage), 0.5)
    return model.scene(1.0)


EVENING = ((30, 30, 30, 30), (27, 35, 30, 30), (27, 35, 25, 34), (23, 35, 29, 34),
           (23, 41, 29, 28), (13, 41, 29, 38), (13, 38, 36, 38), (6, 38, 36, 45),
           (6, 50, 36, 33), (6, 50, 48, 21), (-4, 50, 58, 21), (0, 46, 58, 21),
           (0, 46, 71, 8), (0, 46, 76, 3), (0, 40, 82, 3), (0, 34, 82, 9), (0, 34, 97, -6),
           (0, 0, 120, 0))
"""A Celebration evening of four, move by move, to Peach's win (``winner-celebration``)."""


def _chart(state: TableState, evening: tuple[tuple[int, ...], ...],
           language: str = "en") -> Scene:
    """The end of a game, turned to its coins over the evening (``evening``: every player's
    coins after each move)."""
    model = DisplayModel(idle_after=None, language=language)
    model.apply(StateChanged("bankruptcy", "", state), 0.0)
    series = CoinSeries(state.game.id, tuple(p.id for p in state.players),
                        tuple(CoinPoint(None if i == 0 else i, float(i), coins)
                              for i, coins in enumerate(evening)))
    model.set_coins(series, 0.5)
    return model.scene(0.5 + CHART_SECONDS + 1.0)


def _joining(state: TableState, phones: tuple[int, ...], language: str = "en") -> Scene:
    """A game just started, the players ``phones`` with a phone already: the join screen."""
    model = DisplayModel(language=language)
    model.set_join_link(state.game.id, SAMPLE_JOIN_LINK)
    players = tuple(replace(p, linked=p.id in phones) for p in state.players)
    model.apply(StateChanged("new game", "", replace(state, players=players)), 0.0)
    return model.scene(1.0)


FULL = StorageView(False, "the SD card is full: free some space (the companion keeps trying)",
                   2, True)
"""A sample of the bank not saving: two presses held."""


def sample_scenes(language: str = "en") -> dict[str, Scene]:
    """One scene per screen type the panel can show, its words in ``language``."""
    fees = editions()["celebration"].default_mode.fees
    _outcome_scene_ = partial(_outcome_scene, language=language)
    _still_ = partial(_still, language=language)
    scenes = {
        "outcome-coins-3": _outcome_scene_(Outcome(Kind.COINS, 3, (1, 3)), 3),
        "outcome-coins-6": _outcome_scene_(Outcome(Kind.COINS, 6, (2, 6)), 6),
        "outcome-power-up": _outcome_scene_(Outcome(Kind.POWER_UP, 0, (5,)), 0),
        "outcome-bowser": _outcome_scene_(Outcome(Kind.BOWSER, fees["bowser"], (3,)),
                                         -fees["bowser"]),
        "outcome-game-over": _outcome_scene_(Outcome(Kind.GAME_OVER, fees["game_over"], (6,)),
                                            -fees["game_over"]),
        "outcome-unassigned": _outcome_scene_(Outcome(Kind.COINS, 2, (1, 2)), 0, player=None),
        "outcome-utility-rent": _outcome_scene_(
            Outcome(Kind.RENT, 8, (4,), "utility_rent"), -8,
            params={"payer": 2, "owner": 1, "utilities": 2}),
        "outcome-coin-block": _outcome_scene_(Outcome(Kind.COINS, 4, (4,), "coin_block"), 4,
                                             edition="gamer"),
        "outcome-item-box": _outcome_scene_(Outcome(Kind.COINS, 5, (5,), "item_box"), 5,
                                           edition="mario_kart"),
        **movie_outcomes(language),
        "outcome-fight-won": _outcome_scene_(Outcome(Kind.BOSS_WON, 0, (5,), "boss"), 0,
                                            edition="gamer", player=3),
        "outcome-fight-lost": _outcome_scene_(Outcome(Kind.BOSS_LOST, 0, (2,), "boss"), 0,
                                             edition="gamer", player=1),
        "outcome-race-roll": _outcome_scene_(Outcome(Kind.RACE_ROLL, 0, (4,), "race"), 0,
                                            edition="mario_kart"),
    }
    table = DisplayModel(idle_after=None, language=language)
    table.apply(StateChanged("transfer", "", sample_state()), 0.0)
    scenes["table-4-players"] = table.scene(1.0)
    six = DisplayModel(idle_after=None, language=language)
    six.apply(StateChanged("transfer", "", sample_state(players=6, current=5)), 0.0)
    scenes["table-6-players"] = six.scene(1.0)
    negative = DisplayModel(idle_after=None, language=language)
    negative.apply(StateChanged("undo", "", sample_state(current=3,
                                                         balances=(12, 9, -17, 64))), 0.0)
    scenes["table-negative-balance"] = negative.scene(1.0)
    worms = DisplayModel(idle_after=None, language=language)
    worms_state = sample_state(current=2, balances=(0, 0, 0, 0), edition="wiggly_worms",
                               worms=(3, 1, 4, 0))
    worms.apply(StateChanged("next player", "", worms_state), 0.0)
    scenes["table-wiggly-worms"] = worms.scene(1.0)
    scenes["table-player-out"] = _still_(sample_state(current=3, balances=(41, 0, 22, 57),
                                                     out=(2,)))
    rent = ModeView("utility_rent", "Utility rent", False,
                    {"payer": 2, "owner": 1, "utilities": 2},
                    "Utility rent: Luigi pays Mario, 2 utilities")
    scenes["table-armed-rent"] = _still_(sample_state(current=2, mode=rent))
    scenes["table-gamer-board"] = _still_(sample_state(
        players=3, current=2, edition="gamer", balances=(9, 7, 11),
        points=((60, 3), (40, 2), (50, 2)), moves=GAMER_MOVES, board=GAMER_BOARD))
    scenes["winner-celebration"] = _still_(sample_state(current=3, balances=(0, 0, 120, 0),
                                                       out=(2, 4, 1), ended=True))
    scenes["winner-mario-kart"] = _still_(sample_state(
        edition="mario_kart", balances=(13, 22, 8, 17), ended=True,
        points=((130, 5), (90, 4), (110, 6), (40, 2))))
    scenes["winner-wiggly-worms"] = _still_(sample_state(
        edition="wiggly_worms", balances=(0, 0, 0, 0), worms=(3, 5, 4, 1), ended=True))
    scenes["chart-celebration"] = _chart(sample_state(current=3, balances=(0, 0, 120, 0),
                                                      out=(2, 4, 1), ended=True), EVENING,
                                         language)
    scenes["chart-6-players"] = _chart(sample_state(
        players=6, balances=(0, 0, 0, 0, 0, 180), out=(1, 2, 3, 4, 5), ended=True),
        (*((*coins, 30 - coins[0] // 3, 30 + i * 8) for i, coins in enumerate(EVENING)),
         (0, 0, 0, 0, 0, 180)), language)
    scenes["outcome-not-saved"] = _outcome_scene_(Outcome(Kind.COINS, 3, (1, 3)), 3,
                                                 held=FULL)
    scenes["table-not-saved"] = _still_(sample_state(), storage=FULL)
    card = DisplayModel(idle_after=None, language=language)
    card.apply(CardTapped("04A224B9112233", "unknown", "new card", {}), 0.0)
    scenes["card-new"] = card.scene(1.0)
    timer = DisplayModel(idle_after=None, language=language)
    timer.set_timer(TimerView(deadline=14.0, duration=14.0, label=_("Worms are moving!")), 0.0)
    scenes["timer-running"] = timer.scene(2.2)
    scenes["timer-last-seconds"] = timer.scene(11.4)
    scenes["timer-time-up"] = timer.scene(14.2)
    scenes.update(movie_tables(language))
    scenes.update(contest_scenes(language))
    idle = DisplayModel(language=language)
    idle.set_link(SAMPLE_LINK)
    idle.apply(StateChanged("transfer", "", sample_state()), 0.0)
    scenes["idle-qr"] = idle.scene(10_000.0)
    offline = DisplayModel(language=language)
    scenes["idle-no-link"] = offline.scene(0.0)
    scenes["join-qr"] = _joining(sample_state(), (1,), language)
    scenes["join-qr-6-players"] = _joining(sample_state(players=6), (), language)
    assert all(s.outcome is None or s.outcome.frame >= ANIMATION_FRAMES
               for s in scenes.values()), f"previews show settled frames ({FPS} fps)"
    return scenes


def movie_outcomes(language: str = "en") -> dict[str, Scene]:
    """The Movie's presses: the turn roll (doubles, the third), a battle's two presses and its
    verdicts, Piranha Plant, Super Star and the rolls out of Jail (for Luigi, player 2)."""
    def movie(kind: Kind, rolls: tuple[int, ...], mode: str, coins: int = 0, step: int = 0,
              **kwargs: object) -> Scene:
        outcome = Outcome(kind, coins, rolls, mode, step)
        return _outcome_scene(outcome, outcome.coin_delta, edition="movie",
                              language=language, **kwargs)  # type: ignore[arg-type]

    battle = {"leader": 1, "teammate": 2}
    prize = editions()["movie"].mode("battle").fees["prize"]
    fee = editions()["movie"].mode("jail").fees["fee"]
    return {
        "outcome-movie-turn": movie(Kind.DICE, (4, 2), "turn"),
        "outcome-movie-doubles": movie(Kind.DICE, (3, 3), "turn", step=2),
        "outcome-movie-third-doubles": movie(Kind.THIRD_DOUBLES, (5, 5), "turn", step=3),
        "outcome-movie-battle-roll": movie(Kind.BATTLE_ROLL, (4,), "battle", step=1,
                                           player=1, params={**battle, "step": 1}),
        "outcome-movie-battle-won": movie(Kind.BATTLE_WON, (4, 5), "battle", prize, 2,
                                          player=1, params={**battle, "step": 2}),
        "outcome-movie-battle-lost": movie(Kind.BATTLE_LOST, (4, 1), "battle", step=2,
                                           player=1, params={**battle, "step": 2}),
        "outcome-movie-piranha": movie(Kind.PIRANHA, (4,), "piranha", 4),
        "outcome-movie-super-star": movie(Kind.SUPER_STAR, (5,), "super_star", 5,
                                          ping_start=1.6, seconds=3.5),
        "outcome-movie-jail-stay": movie(Kind.JAIL_STAY, (2, 1), "jail", step=1,
                                         jailed=(2,)),
        "outcome-movie-jail-free": movie(Kind.JAIL_FREE, (6, 6), "jail", step=2),
        "outcome-movie-jail-paid": movie(Kind.JAIL_PAID, (5, 2), "jail", fee, 3),
    }


def movie_tables(language: str = "en") -> dict[str, Scene]:
    """A Movie game's table: Luigi in Jail rolls for doubles while Bowser waits on GO, a
    battle armed, and Bowser's win."""
    tries = editions()["movie"].mode("jail").fees["tries"]
    jail = ModeView("jail", "Roll for doubles (in Jail)", False, {},
                    f"Luigi is in Jail: a press rolls for doubles (try 2 of {tries})")
    battle = ModeView("battle", "Battle Bowser", False, {"leader": 1, "teammate": 3},
                      "Battle Bowser: Mario leads with Peach; Mario presses first")
    return {
        "table-movie-jail": _still(sample_state(
            edition="movie", current=2, balances=(34, 21, 27, 35), jailed=(2,),
            bowser_waits=True, mode=jail, moves=MOVIE_MOVES), language=language),
        "table-movie-battle-armed": _still(sample_state(
            edition="movie", current=1, balances=(34, 21, 27, 35), jailed=(2,), mode=battle,
            moves=MOVIE_MOVES), language=language),
        "winner-bowser": _still(sample_state(
            edition="movie", balances=(12, 0, 7, 3), out=(2,), ended=True, bowser_won=True,
            moves=MOVIE_MOVES), language=language),
    }


BOSS_3 = BossCard(3, cost=2, required=4, to_card=True, bonus=3, points=20)
PRIX_2 = PrixCard(2, fee=1, prizes=(5, 2, 1), points=30)


def sample_fight(*steps: tuple[str, int]) -> Fight:
    """Boss 3 (2 coins a roll onto the card, 4 or more wins) flipped by Mario for four
    players, after ``steps``: ("fight", player), ("pass", player), ("roll", die)."""
    fight = Fight.opened(BOSS_3, (1, 2, 3, 4))
    for what, n in steps:
        fight = (fight.fight(n) if what == "fight" else fight.passes(n) if what == "pass"
                 else fight.rolled(n))
    return fight


def sample_race(entrants: tuple[int, ...], rolls: tuple[int, ...] = (), *,
                started: bool = True, final: bool = False) -> Race:
    """Grand Prix 2 (entry 1 coin, prizes 5, 2, 1) for four players, with ``rolls``."""
    race = Race(PRIX_2, (1, 2, 3, 4), final=final)
    for pid in entrants:
        race = race.enter(pid)
    if started:
        race = race.start()
    for roll in rolls:
        race = race.rolled(roll)
    return race


def contest_scenes(language: str = "en") -> dict[str, Scene]:
    """A Gamer game's Boss fight and a Mario Kart game's Race, as the table shows them."""
    def gamer(fight: Fight) -> Scene:
        return _still(replace(sample_state(edition="gamer", balances=(9, 12, 7, 15),
                                           moves=GAMER_MOVES), contest=fight),
                      language=language)

    def kart(race: Race, rematch_due: bool = False) -> Scene:
        state = sample_state(edition="mario_kart", balances=(11, 6, 14, 9))
        card = NextCard("race", "Grand Prix", None if rematch_due else 3, None, False,
                        rematch_due, (2,) if rematch_due else ())
        return _still(replace(state, contest=race, next_card=card), language=language)

    return {
        "fight-choice": gamer(sample_fight()),
        "fight-waiting": gamer(sample_fight(("fight", 1), ("roll", 2), ("pass", 2),
                                            ("fight", 3))),
        "fight-won": gamer(sample_fight(("fight", 1), ("roll", 2), ("pass", 2),
                                        ("fight", 3), ("roll", 5))),
        "fight-got-away": gamer(sample_fight(*(("pass", p) for p in (1, 2, 3, 4)))),
        "race-entries": kart(sample_race((1, 3), started=False)),
        "race-tie": kart(sample_race((1, 2, 4), (5, 3, 5, 2))),
        "race-over": kart(sample_race((1, 2, 3, 4), (5, 3, 5, 1, 2, 6))),
        "race-final-rematch": kart(sample_race((1, 2, 4), (4, 6, 2), final=True),
                                   rematch_due=True),
    }


def size_of(text: str) -> tuple[int, int]:
    w, _, h = text.partition("x")
    return int(w), int(h)


def write_previews(out: Path, sizes: tuple[str, ...] = SIZES,
                   language: str = "en") -> list[Path]:
    """Render every sample scene at every size into ``out``, its words in ``language``;
    returns the files written."""
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    from companion.display.render import render
    from companion.sdl import pygame

    pygame.font.init()
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for size in sizes:
        surface = pygame.Surface(size_of(size))
        for name, scene in sample_scenes(language).items():
            render(scene, surface)
            path = out / f"{size}-{name}.png"
            pygame.image.save(surface, str(path))
            written.append(path)
    return written
