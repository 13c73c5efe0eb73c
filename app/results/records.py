"""Records: each finished game's result, kept per player, and what they add up to per mode and size.

A result is written once, at a game's first end (app.service), and outlives
the game. A won game of a fixed layout also has its 3BV (the fewest clicks
that clear the board), its 3BV per second and the clicks the player used.
Results come back from the store as JSON and are checked here; one that does
not read is left out and counted, never shown half.

A board (a fixed layout, named by its board id, whatever the mode it is
played in) counts once per player: only their first game of it to end is a
result. Once a game of it ended, won or lost, its layout was shown, and any
later end of another game of that board, even one started before, is no
result (no game, no win, no time, no streak). A game without a board id
(cruel but fair) is its own board.

A result graded at its game's end (app.results.review, Game.review) has the game's
accuracy: the share of its moves that bet on something that were proven or
the best guess. A record shows the mean over its results that have one; a
result kept before grades, a game too long to grade at its end, or one where
no move bet on anything has none.

The store keeps what the results add up to (tallies) up to date as each
result arrives, in the same write, so the records cost the same however
long the history: `tally` folds one result in, `recount` counts them all
(a player whose results were kept before tallies, a tally that does not read
back, a result that ended before every end its group keeps), `tallied` reads
them. They answer what `records_of` answers over every result.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Annotated, Any, NotRequired

from pydantic import Field, StrictBool, StrictInt, StrictStr, StringConstraints, TypeAdapter, ValidationError
from typing_extensions import TypedDict

from app.core.game import MAX_BOARD_SIDE, Game
from app.core.stored import schema
from app.modes import get_mode
from app.rooms import get_kind
from solver.generate import bbbv

BEST_TIMES = 10
Seconds = Annotated[float, Field(ge=0, le=1e12, allow_inf_nan=False)]
# A game's accuracy, 0 to 1.
Accuracy = Annotated[float, Field(ge=0, le=1, allow_inf_nan=False)]


@schema
class Place(TypedDict):
    """A game's place in its room (app.rooms: a race's rank among those who cleared the board, of how many)."""

    kind: Annotated[StrictStr, Field(max_length=20)]
    rank: Annotated[StrictInt, Field(ge=1)] | None
    of: Annotated[StrictInt, Field(ge=1)]


@schema
class Result(TypedDict):
    mode: StrictStr
    width: Annotated[StrictInt, Field(ge=2, le=MAX_BOARD_SIDE)]
    height: Annotated[StrictInt, Field(ge=2, le=MAX_BOARD_SIDE)]
    mines: Annotated[StrictInt, Field(ge=1)]
    won: StrictBool
    seconds: Seconds
    finished_at: Seconds
    deaths: Annotated[StrictInt, Field(ge=0)]
    hints: Annotated[StrictInt, Field(ge=0)]
    bbbv: Annotated[StrictInt, Field(ge=0)] | None
    clicks: Annotated[StrictInt, Field(ge=0)] | None
    # Boards of another kind than the mode's usual ("no guessing"); absent from results kept before kinds.
    kind: NotRequired[Annotated[StrictStr, Field(max_length=40)]]
    # The game's accuracy, graded at its end; absent from results kept before grades, None when the game was
    # too long to grade then or no move of it bet on anything.
    accuracy: NotRequired[Accuracy | None]
    # A game of a race: its place in it; absent from results of games outside rooms.
    room: NotRequired[Place]


RESULT = TypeAdapter(Result)


def fixed_layout_figures(game: Game) -> tuple[int, float, int] | None:
    """(3BV, 3BV per second, clicks) of a won game whose layout was fixed from the start of play; None
    for any other (cruel-but-fair deals as it goes, so its board has no 3BV to speak of)."""
    clicks = get_mode(game.mode).clicks(game)
    if game.status != "won" or clicks is None or game.shown_mines is None:
        return None
    value = bbbv(game.width, game.height, frozenset(game.shown_mines))
    seconds = game.elapsed(game.finished_at or 0.0)
    return value, (value / seconds if seconds > 0 else 0.0), clicks


def counts_in_records(game: Game) -> bool:
    """Whether a game's end is a result of the player's: not once the bot played any move of it (Play for
    me), even one undone since, nor when the player had seen its board's layout (`layout_seen`: another
    game of the board ended first), nor a game of a room whose kind makes it nobody's own (a co-op
    board). Hints, Show me, the overlays and the assists leave it the player's own."""
    rules = get_mode(game.mode)
    return (
        not rules.bot_moves(game)
        and not rules.layout_seen(game)
        and (game.room is None or get_kind(game.room["kind"]).counts_in_records)
    )


def accuracy_of(game: Game) -> Fraction | None:
    """A finished game's accuracy as its review keeps it (Game.review): None when it is not graded (yet), or
    no move of it bet on anything."""
    kept = game.review.get("accuracy") if game.review is not None else None
    return Fraction(kept) if kept is not None else None


def result_of(game: Game) -> dict[str, Any]:
    figures = fixed_layout_figures(game)
    accuracy = accuracy_of(game)
    return {
        "mode": game.mode,
        "width": game.width,
        "height": game.height,
        "mines": game.mines,
        "won": game.status == "won",
        "seconds": game.elapsed(game.finished_at or 0.0),
        "finished_at": game.finished_at or 0.0,
        "deaths": game.deaths,
        "hints": game.hints,
        "bbbv": figures[0] if figures else None,
        "clicks": figures[2] if figures else None,
        "kind": get_mode(game.mode).record_kind(game),
        "accuracy": float(accuracy) if accuracy is not None else None,
    }


@dataclass
class Best:
    seconds: float
    finished_at: float
    bbbv: int | None
    accuracy: float | None = None  # its game's, when graded

    @property
    def bbbv_per_second(self) -> float | None:
        return self.bbbv / self.seconds if self.bbbv is not None and self.seconds > 0 else None

    @property
    def date(self) -> str:
        return time.strftime("%Y-%m-%d", time.gmtime(self.finished_at))


@dataclass
class Record:
    """A player's games of one mode at one size."""

    mode: str
    width: int
    height: int
    mines: int
    kind: str = ""  # boards apart from the mode's usual ones ("no guessing")
    games: int = 0
    wins: int = 0
    streak: int = 0  # wins in a row up to the latest game
    best_streak: int = 0
    best: list[Best] = field(default_factory=list)  # the fastest wins, fastest first
    graded: int = 0  # the results with an accuracy
    # The sum of their accuracies, exactly (a float is a fraction): the same whatever order they were added in.
    accuracy_sum: Fraction = Fraction(0)
    races: int = 0  # the games played in a race (app.rooms), whatever their end
    firsts: int = 0  # the races cleared first

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def accuracy(self) -> float | None:
        """The mean accuracy of the results that have one; None when none has."""
        return float(self.accuracy_sum / self.graded) if self.graded else None

    def add(self, result: Result) -> None:
        self.games += 1
        accuracy = result.get("accuracy")
        if accuracy is not None:
            self.graded += 1
            self.accuracy_sum += Fraction(accuracy)
        place = result.get("room")
        if place is not None:
            self.races += 1
            self.firsts += place["rank"] == 1
        if result["won"]:
            self.wins += 1
            self.streak += 1
            self.best_streak = max(self.best_streak, self.streak)
            self.best.append(Best(result["seconds"], result["finished_at"], result["bbbv"], accuracy))
            self.best = sorted(self.best, key=lambda best: (best.seconds, best.finished_at))[:BEST_TIMES]
        else:
            self.streak = 0


@dataclass
class Records:
    records: list[Record]
    unreadable: int  # stored results that did not read back: left out


def records_of(stored: list[str]) -> Records:
    """Per mode and size, in the order of the modes' first games; results taken in the order they ended."""
    results, unreadable = [], 0
    for text in stored:
        try:
            results.append(RESULT.validate_python(json.loads(text)))
        except (ValueError, ValidationError):
            unreadable += 1
    by_kind: dict[tuple[str, int, int, int, str], Record] = {}
    for result in sorted(results, key=lambda result: result["finished_at"]):
        kind = (result["mode"], result["width"], result["height"], result["mines"], result.get("kind", ""))
        by_kind.setdefault(kind, Record(*kind)).add(result)
    return Records(list(by_kind.values()), unreadable)


# ----- tallies: the records kept up to date as results arrive ----------------------------------

# The key of a player's own tally: how many results were kept, and how many of them did not read. Every
# other key is a group's: its mode, size and kind as JSON.
TALLIED = ""
# A group keeps its latest ends, so that a result written a little after later ones (two games ending at
# once, their writes crossing) still falls in its place among the streaks without counting everything again.
TAIL = 32

Count = Annotated[StrictInt, Field(ge=0)]
# An exact sum of accuracies, "n/d" (Record.accuracy_sum).
Sum = Annotated[StrictStr, StringConstraints(pattern=r"^(0|[1-9][0-9]*)/[1-9][0-9]*$", max_length=2000)]


@schema
class PlayerTally(TypedDict):
    unreadable: Count
    results: Count  # kept so far: the next one's place in the order they were kept


@schema
class GroupTally(TypedDict):
    mode: StrictStr
    width: StrictInt
    height: StrictInt
    mines: StrictInt
    kind: StrictStr
    games: Count
    wins: Count
    streak: Count
    best_streak: Count
    # (seconds, finished_at, 3BV, accuracy), fastest first; tallies kept before grades have no accuracy.
    best: list[tuple[Seconds, Seconds, Count | None] | tuple[Seconds, Seconds, Count | None, Accuracy | None]]
    # Absent from tallies kept before grades, whose results had no accuracy: none graded.
    graded: NotRequired[Count]
    accuracy_sum: NotRequired[Sum]
    # Absent from tallies kept before races: none raced.
    races: NotRequired[Count]
    firsts: NotRequired[Count]
    # The records list groups as records_of does, by their earliest end, then by the place among the kept
    # results of the first result that ended then.
    first: Seconds
    order: Count
    # The latest ends (finished_at, won), in order, and the (streak, best streak) just before the first of them.
    tail: list[tuple[Seconds, StrictBool]]
    before_tail: tuple[Count, Count]


PLAYER_TALLY = TypeAdapter(PlayerTally)
GROUP_TALLY = TypeAdapter(GroupTally)


def _read_result(text: str) -> Result | None:
    try:
        return RESULT.validate_python(json.loads(text))
    except (ValueError, ValidationError):
        return None


def _group_key(result: Result) -> str:
    return json.dumps([result["mode"], result["width"], result["height"], result["mines"], result.get("kind", "")])


def tally_key(text: str) -> str | None:
    """The key of the group a stored result counts in; None for one that does not read (the player's tally
    counts it)."""
    result = _read_result(text)
    return None if result is None else _group_key(result)


def _streaks(start: tuple[int, int], ends: list[tuple[float, bool]]) -> tuple[int, int]:
    """(streak, best streak) after these ends, from `start`: what Record.add counts, one end after another."""
    streak, best = start
    for _, won in ends:
        streak = streak + 1 if won else 0
        best = max(best, streak)
    return streak, best


def _row(record: Record, first: float, order: int, ends: list[tuple[float, bool]], before: tuple[int, int]) -> str:
    """A group's tally: its record, and its ends from `before` on, of which the last TAIL are kept."""
    cut = max(0, len(ends) - TAIL)
    return json.dumps(
        {
            "mode": record.mode,
            "width": record.width,
            "height": record.height,
            "mines": record.mines,
            "kind": record.kind,
            "games": record.games,
            "wins": record.wins,
            "streak": record.streak,
            "best_streak": record.best_streak,
            "best": [[best.seconds, best.finished_at, best.bbbv, best.accuracy] for best in record.best],
            "graded": record.graded,
            "accuracy_sum": f"{record.accuracy_sum.numerator}/{record.accuracy_sum.denominator}",
            "races": record.races,
            "firsts": record.firsts,
            "first": first,
            "order": order,
            "tail": ends[cut:],
            "before_tail": _streaks(before, ends[:cut]),
        }
    )


def _record(group: GroupTally) -> Record:
    return Record(
        group["mode"],
        group["width"],
        group["height"],
        group["mines"],
        group["kind"],
        group["games"],
        group["wins"],
        group["streak"],
        group["best_streak"],
        [Best(*best) for best in group["best"]],
        group.get("graded", 0),
        Fraction(group.get("accuracy_sum", "0/1")),
        group.get("races", 0),
        group.get("firsts", 0),
    )


def tally(rows: dict[str, str], text: str, alone: bool = False) -> dict[str, str] | None:
    """The tallies one more stored result changes ({key: JSON}), from those it touches as kept (the player's,
    TALLIED, and its group's, by `tally_key`; one not kept yet left out). `alone`: it is the player's only
    result, and their tallies start with it.

    None when every tally must be counted again from all the results (`recount`): the player has no tally
    yet (their results were kept before tallies), one does not read back, or the result ended before the
    ends its group keeps (wins in a row go by the order games ended, and it falls among those not kept)."""
    if alone and TALLIED not in rows:
        return recount([text])
    try:
        player = PLAYER_TALLY.validate_json(rows[TALLIED])
    except (KeyError, ValidationError):
        return None
    place = player["results"]
    result = _read_result(text)
    if result is None:
        return {TALLIED: json.dumps({"unreadable": player["unreadable"] + 1, "results": place + 1})}
    key, end = _group_key(result), (result["finished_at"], result["won"])
    changes = {TALLIED: json.dumps({**player, "results": place + 1})}
    if key in rows:
        try:
            group = GROUP_TALLY.validate_json(rows[key])
        except ValidationError:
            return None
        ends, before = list(group["tail"]), group["before_tail"]
        if len(ends) < group["games"] and (not ends or end[0] < ends[0][0]):
            return None
        record, first, order = _record(group), group["first"], group["order"]
        if end[0] < first:
            first, order = end[0], place
    else:
        kind = (result["mode"], result["width"], result["height"], result["mines"], result.get("kind", ""))
        record, first, order, ends, before = Record(*kind), end[0], place, [], (0, 0)
    record.add(result)
    # After the ends at the same moment or earlier, as records_of's stable sort puts a result kept later.
    ends.insert(next((at for at, (finished_at, _) in enumerate(ends) if finished_at > end[0]), len(ends)), end)
    record.streak, record.best_streak = _streaks(before, ends)
    changes[key] = _row(record, first, order, ends, before)
    return changes


def recount(stored: list[str]) -> dict[str, str]:
    """Every tally of a player, counted from all their stored results as `records_of` counts them."""
    results, unreadable = [], 0
    for place, text in enumerate(stored):
        result = _read_result(text)
        if result is None:
            unreadable += 1
        else:
            results.append((place, result))
    groups: dict[str, tuple[Record, int, list[tuple[float, bool]]]] = {}
    for place, result in sorted(results, key=lambda kept: kept[1]["finished_at"]):
        key = _group_key(result)
        if key not in groups:
            kind = (result["mode"], result["width"], result["height"], result["mines"], result.get("kind", ""))
            groups[key] = (Record(*kind), place, [])
        record, _, ends = groups[key]
        record.add(result)
        ends.append((result["finished_at"], result["won"]))
    rows = {key: _row(record, ends[0][0], order, ends, (0, 0)) for key, (record, order, ends) in groups.items()}
    rows[TALLIED] = json.dumps({"unreadable": unreadable, "results": len(stored)})
    return rows


def tallied(rows: dict[str, str]) -> Records | None:
    """The records from a player's tallies (none at all: no results yet); None when one does not read back
    (`recount` them)."""
    if not rows:
        return Records([], 0)
    try:
        player = PLAYER_TALLY.validate_json(rows[TALLIED])
        groups = [GROUP_TALLY.validate_json(text) for key, text in rows.items() if key != TALLIED]
    except (KeyError, ValidationError):
        return None
    groups.sort(key=lambda group: (group["first"], group["order"]))
    return Records([_record(group) for group in groups], player["unreadable"])
