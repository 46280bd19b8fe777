"""Press modes: what one press of the block means, as a table with exact odds.

Each mode draws from a die (an RNG passed in: the OS's entropy in the daemon, a seeded one in
tests), prices the result from the edition's data and says it in words. Which modes an edition
has, their names, fees and rulebook lines are data (the edition's TOML); the tables are here.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from companion.core.editions.contests import win_chance
from companion.core.outcomes import TWO_DICE, DieRng, Kind, Outcome
from companion.exc import CompanionError, Refused, shown
from companion.i18n.said import Said, as_json, say, say_n

SIDES = 6
"""Every die in these games is a six-sided numbered die."""

TABLES = ("question_block", "coin_roll", "die_roll", "utility_rent", "lever", "two_dice",
          "battle", "red_die_pay", "red_die_collect", "jail_roll", "boss_roll", "race_roll",
          "move_roll")
"""The tables a mode can use:

- ``question_block``: Celebration's no-sound table: 1-2 roll again and collect that many,
  3-4 Bowser (pay the Bank), 5 power-up, 6 Game Over (pay the Bank);
- ``coin_roll``: roll the numbered die and collect that many coins (Coin Block, Item Box);
- ``die_roll``: a plain roll, shown and heard, no coins;
- ``utility_rent``: roll; the payer pays the owner the roll, doubled with both utilities;
- ``lever``: no dice: a press starts or stops the lever timer;
- ``two_dice``: the Movie's turn: the red and the black die together; doubles give another
  turn, and the ``doubles_limit``-th doubles in a row sends the player to Jail;
- ``battle``: two presses, the leader's die then the teammate's; ``target`` or more wins
  ``prize`` coins each, less sends the leader to Jail;
- ``red_die_pay`` / ``red_die_collect``: roll the red die, pay the Bank / collect that many
  (Piranha Plant, Super Star);
- ``jail_roll``: roll both dice for doubles from Jail; the ``tries``-th miss pays ``fee`` and
  moves with the roll;
- ``boss_roll``: a Boss fighter's numbered die; ``required`` (typed from the card) or more wins;
- ``race_roll``: a racer's numbered die (places follow; ties re-roll);
- ``move_roll``: Gamer's and Mario Kart's turn: the numbered die and the Power-up die together,
  whose six faces the table typed (``faces`` in the press's params); the token moves."""

NUMBERS = {"question_block": ("bowser", "game_over"), "two_dice": ("doubles_limit",),
           "battle": ("target", "prize"), "jail_roll": ("tries", "fee")}
"""The rulebook's numbers each table needs (``fees`` in the edition's TOML, quoted)."""

KINDS = {"question_block": (Kind.COINS, Kind.BOWSER, Kind.POWER_UP, Kind.GAME_OVER),
         "coin_roll": (Kind.COINS,), "die_roll": (Kind.ROLL,), "utility_rent": (Kind.RENT,),
         "lever": (), "two_dice": (Kind.DICE, Kind.THIRD_DOUBLES),
         "battle": (Kind.BATTLE_ROLL, Kind.BATTLE_WON, Kind.BATTLE_LOST),
         "red_die_pay": (Kind.PIRANHA,), "red_die_collect": (Kind.SUPER_STAR,),
         "jail_roll": (Kind.JAIL_FREE, Kind.JAIL_STAY, Kind.JAIL_PAID),
         "boss_roll": (Kind.BOSS_WON, Kind.BOSS_LOST), "race_roll": (Kind.RACE_ROLL,),
         "move_roll": (Kind.MOVE,)}
"""The outcome kinds each table can draw (Home Assistant gets a trigger for each kind of the
edition being played; a test draws every table's faces against it)."""


@dataclass(frozen=True, slots=True)
class Mode:
    """One press mode of one edition."""

    id: str
    name: str
    table: str
    quote: tuple[str, ...]
    default: bool = False
    fees: Mapping[str, int] = field(default_factory=dict)
    """The numbers the table needs (:data:`NUMBERS`: ``bowser``, ``game_over``, ``target``,
    ...), each from the rulebook."""
    hint: str = ""
    """What the screen tells the players to do, where a press is not a die (the lever)."""

    @property
    def draws(self) -> bool:
        """False for the lever: a press draws nothing."""
        return self.table != "lever"

    @property
    def moves_coins(self) -> bool:
        return self.table in ("question_block", "coin_roll", "utility_rent", "battle",
                              "red_die_pay", "red_die_collect", "jail_roll")

    @property
    def needs(self) -> tuple[str, ...]:
        """What arming this mode takes besides its name."""
        if self.table == "utility_rent":
            return ("payer", "owner", "utilities")
        if self.table == "battle":
            return ("leader", "teammate")
        return ()

    @property
    def kinds(self) -> tuple[Kind, ...]:
        """The outcome kinds a press in this mode can draw."""
        return KINDS[self.table]

    @property
    def automatic(self) -> bool:
        """Chosen by the table's state, never armed by hand (rolling out of Jail, a Boss
        fighter's or a racer's roll)."""
        return self.table in ("jail_roll", "boss_roll", "race_roll")

    # -- the table ---------------------------------------------------------------------------

    def odds(self) -> dict[str, Fraction]:
        """Each outcome class and its exact probability (they sum to 1)."""
        die = Fraction(1, SIDES)
        if self.table == "question_block":
            return {**{f"coins_{k}": Fraction(2, SIDES) * die for k in range(1, SIDES + 1)},
                    "bowser": Fraction(2, SIDES), "power_up": die, "game_over": die}
        if self.table == "coin_roll":
            return {f"coins_{k}": die for k in range(1, SIDES + 1)}
        if self.table in ("die_roll", "utility_rent", "boss_roll", "race_roll"):
            return {f"roll_{k}": die for k in range(1, SIDES + 1)}
        if self.table == "two_dice":
            return {f"dice_{r}_{b}": die * die for r in range(1, SIDES + 1)
                    for b in range(1, SIDES + 1)}
        if self.table == "battle":
            target = self.fees["target"]
            won = sum(Fraction(1, SIDES * SIDES) for a in range(1, SIDES + 1)
                      for b in range(1, SIDES + 1) if a + b >= target)
            return {"won": won, "lost": 1 - won}
        if self.table == "red_die_pay":
            return {f"piranha_{k}": die for k in range(1, SIDES + 1)}
        if self.table == "red_die_collect":
            return {f"star_{k}": die for k in range(1, SIDES + 1)}
        if self.table == "jail_roll":
            return {"doubles": die, "no_doubles": 1 - die}
        if self.table == "move_roll":
            return {f"move_{k}_face_{f}": die * die for k in range(1, SIDES + 1)
                    for f in range(1, SIDES + 1)}
        return {}

    def groups(self, params: Mapping[str, Any] | None = None
               ) -> dict[str, tuple[frozenset[str], Fraction]]:
        """Classes of outcomes worth their own line in ``companion odds``: the Movie's turn
        roll's doubles (1/6); a Boss fight won and lost for a ``required`` roll ((7 - r)/6),
        with the labels that make them up."""
        if self.table == "boss_roll":
            required = int((params or {}).get("required", 0))
            if not 1 <= required <= SIDES:
                return {}
            won = frozenset(f"roll_{k}" for k in range(required, SIDES + 1))
            lost = frozenset(f"roll_{k}" for k in range(1, required))
            return {"won": (won, win_chance(required)), "lost": (lost, 1 - win_chance(required))}
        if self.table == "move_roll":
            return _face_groups(self, (params or {}).get("faces"))
        if self.table != "two_dice":
            return {}
        doubles = frozenset(f"dice_{k}_{k}" for k in range(1, SIDES + 1))
        return {"doubles": (doubles, sum((p for label, p in self.odds().items()
                                          if label in doubles), Fraction(0)))}

    def draw(self, rng: DieRng, params: Mapping[str, Any] | None = None) -> Outcome:
        """Roll and read the table (``params``: what the mode was armed with, and where the
        table stands: the doubles so far this turn, the tries made from Jail, a battle's
        first die)."""
        return _DRAWS[self.table](self, rng, params or {})

    def settle(self, rng: DieRng, params: Mapping[str, Any] | None = None) -> Outcome:
        """Press until the mode has its verdict: a battle takes two presses (the odds of a
        battle are those of the pair)."""
        given = dict(params or {})
        outcome = self.draw(rng, given)
        while outcome.kind is Kind.BATTLE_ROLL:
            outcome = self.draw(rng, {**given, "first": outcome.rolls[0]})
        return outcome

    def could_draw(self, outcome: Outcome, params: Mapping[str, Any] | None = None) -> bool:
        """Whether a press in this mode can draw ``outcome`` (its kind, coins, dice and step)
        with ``params`` (what was armed, where the table stood; where one the table reads is
        not given, any value it can have): a press given back is checked against the table
        itself, every roll of the dice tried."""
        if not self.draws or outcome.mode != self.id:
            return False
        wanted = (outcome.kind, outcome.coins, outcome.rolls, outcome.step)
        given = dict(params or {})
        return any((got.kind, got.coins, got.rolls, got.step) == wanted
                   for variant in self._variants(given)
                   for got in _every_draw(self, variant))

    def _variants(self, given: dict[str, Any]) -> list[dict[str, Any]]:
        read = {"two_dice": ("doubles", range(self.fees.get("doubles_limit", 0))),
                "jail_roll": ("tries", range(self.fees.get("tries", 0))),
                "battle": ("first", (None, *range(1, SIDES + 1))),
                "boss_roll": ("required", range(1, SIDES + 2)),
                "utility_rent": ("utilities", range(1, MAX_UTILITIES + 1))}.get(self.table)
        if read is None or read[0] in given:
            return [given]
        key, values = read
        return [{**given, **({} if v is None else {key: v})} for v in values]

    # -- in words ------------------------------------------------------------------------------

    def headline(self, outcome: Outcome) -> Said:
        """A few words, big on the screen: ``3 COINS!``, ``BOWSER!``, ``RENT 8``."""
        kind = outcome.kind
        if kind is Kind.COINS:
            return say_n("{n} COIN!", "{n} COINS!", outcome.coins)
        if kind in (Kind.ROLL, Kind.RACE_ROLL):
            return say("ROLLED {n}", n=outcome.rolls[-1])
        if kind is Kind.RENT:
            return say("RENT {n}", n=outcome.coins)
        movie = _movie_headline(outcome)
        if movie is not None:
            return movie
        if kind is Kind.MOVE:
            return say("MOVE {n}!", n=outcome.rolls[0])
        if kind is Kind.BOSS_WON:
            return say("ROLLED {n}: BOSS BEATEN!", n=outcome.rolls[-1])
        if kind is Kind.BOSS_LOST:
            return say("ROLLED {n}: NOT ENOUGH", n=outcome.rolls[-1])
        return {Kind.BOWSER: say("BOWSER!"), Kind.POWER_UP: say("POWER-UP!"),
                Kind.GAME_OVER: say("GAME OVER")}[kind]

    def instruction(self, outcome: Outcome, params: Mapping[str, Any] | None = None) -> Said:
        """What the player is told to do, as the rulebook says it (``params``: what the press
        was armed with; a battle led alone is won by the leader alone)."""
        kind, coins = outcome.kind, outcome.coins
        if kind is Kind.COINS:
            return say_n("Collect {n} coin from the Bank", "Collect {n} coins from the Bank",
                         coins)
        if kind in (Kind.BOWSER, Kind.GAME_OVER):
            return say_n("Pay the Bank {n} coin", "Pay the Bank {n} coins", coins)
        if kind is Kind.POWER_UP:
            return say("Roll the die and move again")
        if kind is Kind.RENT:
            return say_n("Pay the owner {n} coin", "Pay the owner {n} coins", coins)
        if kind is Kind.MOVE:
            _face, name = face_of(outcome, params)
            if name:
                return say_n("Move {n} space, and the Power-up die shows {ability}",
                             "Move {n} spaces, and the Power-up die shows {ability}",
                             outcome.rolls[0], ability=Said(name))
            return say_n("Move {n} space", "Move {n} spaces", outcome.rolls[0])
        movie = self._movie_instruction(outcome, _alone(params))
        if movie is not None:
            return movie
        if kind is Kind.BOSS_WON:
            return say("The Boss is beaten: carry out the Bonus and keep the card for its "
                       "points")
        if kind is Kind.BOSS_LOST:
            return say("The fight is lost: the next player fights or passes")
        return say("The die says {roll}", roll=outcome.rolls[-1])

    def _movie_instruction(self, outcome: Outcome, alone: bool = False) -> Said | None:
        kind, coins, total = outcome.kind, outcome.coins, outcome.total
        if kind is Kind.DICE and outcome.bowser_waits:  # "Bowser stays on the GO space"
            if outcome.doubles:
                return say("Bowser waits on GO: you move {total}. Doubles ({step} of "
                           "{limit}): take another turn after this one", total=total,
                           step=outcome.step, limit=self.fees["doubles_limit"])
            return say("Bowser waits on GO: you move {total}", total=total)
        if kind is Kind.DICE:
            if outcome.doubles:
                return say("Bowser moves {black} (black die), then you move {total}. Doubles "
                           "({step} of {limit}): take another turn after this one",
                           black=outcome.rolls[1], total=total, step=outcome.step,
                           limit=self.fees["doubles_limit"])
            return say("Bowser moves {black} (black die), then you move {total}",
                       black=outcome.rolls[1], total=total)
        if kind is Kind.THIRD_DOUBLES:
            return say("Go straight to Jail: no coins for passing GO. Your turn ends")
        if kind is Kind.BATTLE_ROLL:
            return say("The leader rolled {roll}: now the teammate presses",
                       roll=outcome.rolls[0])
        if kind is Kind.BATTLE_WON and alone:  # nobody else could battle: no teammate
            return say_n("The leader collects {n} coin. Bowser goes to GO and waits there until "
                         "everyone has had a turn",
                         "The leader collects {n} coins. Bowser goes to GO and waits there "
                         "until everyone has had a turn", coins)
        if kind is Kind.BATTLE_WON:
            return say_n("Leader and teammate collect {n} coin each. Bowser goes to GO and "
                         "waits there until everyone has had a turn",
                         "Leader and teammate collect {n} coins each. Bowser goes to GO and "
                         "waits there until everyone has had a turn", coins)
        if kind is Kind.BATTLE_LOST:
            return say("The leader goes to Jail (no GO coins). Bowser stays where he is")
        if kind is Kind.PIRANHA:
            return say_n("Pay the Bank {n} coin", "Pay the Bank {n} coins", coins)
        if kind is Kind.SUPER_STAR:
            return say_n("Collect {n} coin from the Bank", "Collect {n} coins from the Bank",
                         coins)
        # "Each time the players roll the dice to move they will use the black die to move
        # Bowser": a roll out of Jail moves him too, unless he waits on GO.
        if kind is Kind.JAIL_FREE and outcome.bowser_waits:
            return say("Out of Jail with the doubles. Bowser waits on GO: you move {total}",
                       total=total)
        if kind is Kind.JAIL_FREE:
            return say("Out of Jail with the doubles. Bowser moves {black} (black die), then "
                       "you move {total}", black=outcome.rolls[1], total=total)
        if kind is Kind.JAIL_STAY:
            left = self.fees["tries"] - outcome.step
            return say_n("Stay in Jail: {n} try left", "Stay in Jail: {n} tries left", left)
        if kind is Kind.JAIL_PAID and outcome.bowser_waits:
            return say_n("Pay the Bank {n} coin. Bowser waits on GO: you move {total}",
                         "Pay the Bank {n} coins. Bowser waits on GO: you move {total}", coins,
                         total=total)
        if kind is Kind.JAIL_PAID:
            return say_n("Pay the Bank {n} coin. Bowser moves {black} (black die), then you "
                         "move {total}",
                         "Pay the Bank {n} coins. Bowser moves {black} (black die), then you "
                         "move {total}", coins, black=outcome.rolls[1], total=total)
        return None

    def describe(self, outcome: Outcome, params: Mapping[str, Any] | None = None) -> Said:
        """One line for the log and the demo: what was heard and what to do."""
        kind, coins = outcome.kind, outcome.coins
        name = Said(self.name)  # the edition's word for the mode (its TOML)
        if self.table == "question_block":
            if kind is Kind.COINS:
                return say_n("{n} coin ping: collect {n} coin", "{n} coin pings: collect {n} coins",
                             coins)
            if kind is Kind.BOWSER:
                return say_n("Bowser's laugh: pay the Bank {n} coin",
                             "Bowser's laugh: pay the Bank {n} coins", coins)
            if kind is Kind.POWER_UP:
                return say("Power-up ring: roll the die and move again")
            return say_n("Game Over tune: pay the Bank {n} coin",
                         "Game Over tune: pay the Bank {n} coins", coins)
        if outcome.kind in TWO_DICE or outcome.kind in (Kind.BATTLE_ROLL, Kind.BATTLE_WON,
                                                        Kind.BATTLE_LOST, Kind.PIRANHA,
                                                        Kind.SUPER_STAR):
            rolled = " + ".join(str(r) for r in outcome.rolls)
            return say("{mode}, rolled {rolled}: {instruction}", mode=name, rolled=rolled,
                       instruction=self._movie_instruction(outcome, _alone(params)))
        if kind is Kind.RENT:
            roll = outcome.rolls[-1]
            times = coins // roll
            if times == 1:
                return say_n("{mode}: rolled {roll}, rent {roll} = {n} coin",
                             "{mode}: rolled {roll}, rent {roll} = {n} coins", coins,
                             mode=name, roll=roll)
            return say_n("{mode}: rolled {roll}, rent {roll} x {times} = {n} coin",
                         "{mode}: rolled {roll}, rent {roll} x {times} = {n} coins", coins,
                         mode=name, roll=roll, times=times)
        if kind is Kind.MOVE:
            return say("{mode}: {instruction}", mode=name,
                       instruction=self.instruction(outcome, params))
        if kind is Kind.COINS:
            return say_n("{mode}: rolled {roll}, collect {n} coin",
                         "{mode}: rolled {roll}, collect {n} coins", coins, mode=name,
                         roll=outcome.rolls[-1])
        return say("{mode}: rolled {roll}", mode=name, roll=outcome.rolls[-1])

    def to_json(self) -> dict[str, Any]:
        data = {"id": self.id, "name": self.name, "default": self.default,
                "table": self.table, "draws": self.draws, "moves_coins": self.moves_coins,
                "needs": list(self.needs), "fees": dict(self.fees), "quote": list(self.quote),
                "odds": {label: str(p) for label, p in self.odds().items()},
                "hint": self.hint}
        if self.hint:  # the edition's words: the page looks them up in its catalog
            data["hint_said"] = as_json(Said(self.hint))
        if self.table == "utility_rent":
            data["max_utilities"] = MAX_UTILITIES
        data["automatic"] = self.automatic
        groups = self.groups()
        if groups:
            data["groups"] = {name: str(p) for name, (_labels, p) in groups.items()}
        return data


def _face_groups(mode: Mode, faces: object) -> dict[str, tuple[frozenset[str], Fraction]]:
    """The movement press by the ability its Power-up face shows (a face typed twice: 2/6)."""
    if not isinstance(faces, list | tuple) or len(faces) != SIDES:
        return {}
    groups: dict[str, tuple[frozenset[str], Fraction]] = {}
    for ability in dict.fromkeys(faces):
        slots = [i + 1 for i, f in enumerate(faces) if f == ability]
        labels = frozenset(f"move_{k}_face_{f}" for k in range(1, SIDES + 1) for f in slots)
        groups[str(ability)] = (labels, Fraction(len(slots), SIDES))
    return groups


def face_of(outcome: Outcome, params: Mapping[str, Any] | None) -> tuple[str, str]:
    """A movement press's Power-up ability: its id and name (empty: not known)."""
    params = params or {}
    face = params.get("face")
    name = params.get("face_name")
    if face is None and isinstance(params.get("faces"), list | tuple) and \
            len(params["faces"]) == SIDES:
        face = params["faces"][outcome.rolls[1] - 1]
        names = params.get("face_names") or ()
        name = names[outcome.rolls[1] - 1] if len(names) == SIDES else face
    return str(face or ""), str(name or face or "")


def _movie_headline(outcome: Outcome) -> Said | None:
    kind, coins, total = outcome.kind, outcome.coins, outcome.total
    a, b = (*outcome.rolls, 0, 0)[:2]
    if kind is Kind.DICE:
        return (say("DOUBLES! {a} + {b}", a=a, b=b) if outcome.doubles else
                say("{a} + {b} = {total}", a=a, b=b, total=total))
    if kind is Kind.THIRD_DOUBLES:
        return say("3RD DOUBLES: JAIL {a} + {b}", a=a, b=b)
    if kind is Kind.BATTLE_ROLL:
        return say("BATTLE! LEADER {n}", n=outcome.rolls[0])
    if kind is Kind.BATTLE_WON:
        return say("BOWSER BEATEN {a} + {b} = {total}", a=a, b=b, total=total)
    if kind is Kind.BATTLE_LOST:
        return say("BATTLE LOST {a} + {b} = {total}", a=a, b=b, total=total)
    if kind is Kind.PIRANHA:
        return say("PIRANHA PLANT! PAY {n}", n=coins)
    if kind is Kind.SUPER_STAR:
        return say("SUPER STAR! +{n}", n=coins)
    if kind is Kind.JAIL_FREE:
        return say("DOUBLES! FREE {a} + {b}", a=a, b=b)
    if kind is Kind.JAIL_STAY:
        return say("NO DOUBLES {a} + {b}", a=a, b=b)
    if kind is Kind.JAIL_PAID:
        return say("PAY {n}, MOVE {total}", n=coins, total=total)
    return None


def _question_block(mode: Mode, rng: DieRng, _params: Mapping[str, Any]) -> Outcome:
    first = rng.randint(1, SIDES)
    if first <= 2:
        second = rng.randint(1, SIDES)
        return Outcome(Kind.COINS, second, (first, second), mode.id)
    if first <= 4:
        return Outcome(Kind.BOWSER, mode.fees["bowser"], (first,), mode.id)
    if first == 5:
        return Outcome(Kind.POWER_UP, 0, (first,), mode.id)
    return Outcome(Kind.GAME_OVER, mode.fees["game_over"], (first,), mode.id)


def _coin_roll(mode: Mode, rng: DieRng, _params: Mapping[str, Any]) -> Outcome:
    roll = rng.randint(1, SIDES)
    return Outcome(Kind.COINS, roll, (roll,), mode.id)


def _die_roll(mode: Mode, rng: DieRng, _params: Mapping[str, Any]) -> Outcome:
    return Outcome(Kind.ROLL, 0, (rng.randint(1, SIDES),), mode.id)


def _utility_rent(mode: Mode, rng: DieRng, params: Mapping[str, Any]) -> Outcome:
    roll = rng.randint(1, SIDES)
    return Outcome(Kind.RENT, roll * int(params.get("utilities", 1)), (roll,), mode.id)


def _lever(mode: Mode, _rng: DieRng, _params: Mapping[str, Any]) -> Outcome:
    raise Refused(say("{mode} draws nothing: a press starts or stops the timer",
                      mode=Said(mode.name)))


def _alone(params: Mapping[str, Any] | None) -> bool:
    """A battle armed with its leader and no teammate (everyone else was in Jail)."""
    return params is not None and "leader" in params and params.get("teammate") is None


def _two_dice(mode: Mode, rng: DieRng, params: Mapping[str, Any]) -> Outcome:
    """``params["doubles"]``: doubles already rolled in a row this turn;
    ``params["bowser_waits"]``: Bowser waits on GO, so the black die does not move him."""
    red, black = rng.randint(1, SIDES), rng.randint(1, SIDES)
    waits = bool(params.get("bowser_waits"))
    if red != black:
        return Outcome(Kind.DICE, 0, (red, black), mode.id, bowser_waits=waits)
    step = int(params.get("doubles", 0)) + 1
    if step >= mode.fees["doubles_limit"]:
        return Outcome(Kind.THIRD_DOUBLES, 0, (red, black), mode.id, step)
    return Outcome(Kind.DICE, 0, (red, black), mode.id, step, bowser_waits=waits)


def _battle(mode: Mode, rng: DieRng, params: Mapping[str, Any]) -> Outcome:
    """The leader's press, then (``params["first"]``: the leader's die) the teammate's."""
    roll = rng.randint(1, SIDES)
    first = params.get("first")
    if first is None:
        return Outcome(Kind.BATTLE_ROLL, 0, (roll,), mode.id, 1)
    if int(first) + roll >= mode.fees["target"]:
        return Outcome(Kind.BATTLE_WON, mode.fees["prize"], (int(first), roll), mode.id, 2)
    return Outcome(Kind.BATTLE_LOST, 0, (int(first), roll), mode.id, 2)


def _red_die_pay(mode: Mode, rng: DieRng, _params: Mapping[str, Any]) -> Outcome:
    roll = rng.randint(1, SIDES)
    return Outcome(Kind.PIRANHA, roll, (roll,), mode.id)


def _red_die_collect(mode: Mode, rng: DieRng, _params: Mapping[str, Any]) -> Outcome:
    roll = rng.randint(1, SIDES)
    return Outcome(Kind.SUPER_STAR, roll, (roll,), mode.id)


def _contest_roll(mode: Mode, rng: DieRng, params: Mapping[str, Any]) -> Outcome:
    """A Boss fighter's die (won at ``params["required"]`` or more) or a racer's die."""
    roll = rng.randint(1, SIDES)
    if mode.table == "race_roll":
        return Outcome(Kind.RACE_ROLL, 0, (roll,), mode.id)
    required = int(params.get("required", SIDES + 1))
    return Outcome(Kind.BOSS_WON if roll >= required else Kind.BOSS_LOST, 0, (roll,), mode.id)


def _jail_roll(mode: Mode, rng: DieRng, params: Mapping[str, Any]) -> Outcome:
    """``params["tries"]``: tries already made from Jail; ``params["bowser_waits"]``: a roll
    that moves the player does not move Bowser while he waits on GO."""
    red, black = rng.randint(1, SIDES), rng.randint(1, SIDES)
    step = int(params.get("tries", 0)) + 1
    waits = bool(params.get("bowser_waits"))
    if red == black:
        return Outcome(Kind.JAIL_FREE, 0, (red, black), mode.id, step, bowser_waits=waits)
    if step >= mode.fees["tries"]:
        return Outcome(Kind.JAIL_PAID, mode.fees["fee"], (red, black), mode.id, step,
                       bowser_waits=waits)
    return Outcome(Kind.JAIL_STAY, 0, (red, black), mode.id, step)


def _move_roll(mode: Mode, rng: DieRng, _params: Mapping[str, Any]) -> Outcome:
    """The numbered die, then the Power-up die (a face 1-6, read by the table's faces)."""
    roll = rng.randint(1, SIDES)
    face = rng.randint(1, SIDES)
    return Outcome(Kind.MOVE, 0, (roll, face), mode.id)


class _Scripted:
    """Dice that show the faces given, then ask for one more (:class:`_More`)."""

    def __init__(self, faces: tuple[int, ...]) -> None:
        self.faces, self.used = faces, 0

    def randint(self, a: int, b: int) -> int:
        if self.used == len(self.faces):
            raise _More(a, b)
        self.used += 1
        return self.faces[self.used - 1]


class _More(Exception):
    def __init__(self, a: int, b: int) -> None:
        super().__init__(a, b)
        self.faces = range(a, b + 1)


MAX_DICE = 4
"""Dice one press reads at most (two dice: two)."""


def _every_draw(mode: Mode, params: Mapping[str, Any]) -> Iterator[Outcome]:
    """Every outcome ``mode`` draws with ``params``, one for each way the dice can fall."""
    scripts: list[tuple[int, ...]] = [()]
    while scripts:
        faces = scripts.pop()
        try:
            yield _DRAWS[mode.table](mode, _Scripted(faces), params)
        except _More as more:
            if len(faces) < MAX_DICE:
                scripts.extend((*faces, face) for face in more.faces)
        except (CompanionError, ValueError, KeyError, TypeError):
            return  # params this table can't draw with


_DRAWS = {"question_block": _question_block, "coin_roll": _coin_roll, "die_roll": _die_roll,
          "utility_rent": _utility_rent, "lever": _lever, "two_dice": _two_dice,
          "battle": _battle, "red_die_pay": _red_die_pay, "red_die_collect": _red_die_collect,
          "jail_roll": _jail_roll, "boss_roll": _contest_roll, "race_roll": _contest_roll,
          "move_roll": _move_roll}
"""Each table's draw: one die (two for the Question Block's coins), read as the rulebook says."""

MAX_UTILITIES = 2
"""The board has two utilities."""


def check_rent(params: Mapping[str, object], players: tuple[int, ...]) -> dict[str, int]:
    """Utility rent's arming: ``payer`` and ``owner`` (two different players still in the
    game) and ``utilities`` (1 or 2, how many the owner has)."""
    payer, owner, utilities = params.get("payer"), params.get("owner"), params.get("utilities")
    for name, who in (("payer", payer), ("owner", owner)):
        if not isinstance(who, int) or isinstance(who, bool) or who not in players:
            raise Refused(say("{field} must be a player still in the game, got {value}",
                              field=name, value=shown(who)))
    if payer == owner:
        raise Refused(say("the payer cannot own the utility: pick the owner"))
    if not isinstance(utilities, int) or isinstance(utilities, bool) or \
            not 1 <= utilities <= MAX_UTILITIES:
        raise Refused(say("utilities must be 1 or {most} (how many the owner has), got {value}",
                          most=MAX_UTILITIES, value=shown(utilities)))
    return {"payer": payer, "owner": owner, "utilities": utilities}  # type: ignore[dict-item]


BY_CARD = "card"
"""A battle's ``teammate`` still to come: the next player card tapped (a Battle card armed it)."""


def check_battle(params: Mapping[str, object], players: tuple[int, ...],
                 jailed: frozenset[int] = frozenset(), *, late: bool = False
                 ) -> dict[str, Any]:
    """A battle's arming: ``leader`` (who landed on Bowser, or whom he landed on) and the
    ``teammate`` they pick, two different players still in the game and not in Jail ("You
    cannot battle Bowser" from Jail). ``teammate`` may be left out only when nobody else can
    battle: the leader then rolls both dice (README: the rulebook is silent); ``"card"``: the
    next player card tapped joins (:data:`BY_CARD`). ``late``: a press held while the disk
    refused it, banked as it was armed (who is in Jail now does not matter)."""
    leader, teammate = params.get("leader"), params.get("teammate")
    for name, who in (("leader", leader), ("teammate", teammate)):
        if name == "teammate" and who in (None, BY_CARD):
            continue
        if not isinstance(who, int) or isinstance(who, bool) or who not in players:
            raise Refused(say("{field} must be a player still in the game, got {value}",
                              field=name, value=shown(who)))
        if who in jailed:
            raise Refused(say("the leader is in Jail, and a player in Jail can't battle Bowser")
                          if name == "leader" else
                          say("the teammate is in Jail, and a player in Jail can't battle "
                              "Bowser"))
    if leader == teammate:
        raise Refused(say("the leader picks another player as teammate"))
    free = [p for p in players if p != leader and p not in jailed]
    if teammate is None and free and not late:
        raise Refused(say("teammate is required: the leader picks another player to battle "
                          "with"))
    clean: dict[str, Any] = {"leader": leader, "teammate": teammate}
    first = params.get("first")
    if first is not None:
        if not isinstance(first, int) or isinstance(first, bool) or not 1 <= first <= SIDES:
            raise Refused(say("first must be the leader's die, 1 to {sides}", sides=SIDES))
        clean["first"] = first
    return clean


def check_arming(mode: Mode, params: Mapping[str, object], players: tuple[int, ...],
                 jailed: frozenset[int] = frozenset(), *, late: bool = False
                 ) -> dict[str, Any]:
    """What arming ``mode`` takes, checked (Refused names the problem); ``late``: a held
    press, banked as it was armed."""
    taken = (*mode.needs, *(("first",) if mode.table == "battle" else ()))  # its first die
    extra = sorted(str(k) for k in params if k not in taken)
    if extra:  # given, so checked: a field no rule reads is refused, never ignored
        raise Refused(say("{mode} takes nothing more: got {fields}", mode=Said(mode.name),
                          fields=", ".join(name[:40] for name in extra[:5])))
    if mode.table == "utility_rent":
        return check_rent(params, players)
    if mode.table == "battle":
        return check_battle(params, players, frozenset() if late else jailed, late=late)
    return {}
