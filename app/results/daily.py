"""Boards of the day and their ladders: each UTC day, one Expert board per mode that has one (Mode.daily), the
same for every player of a server; each board's ladder ranks its players' first finished games.

A day's board is made from the server's key and the date alone (a keyed hash seeds Mode.shared_board), so
every host sharing the key makes the same board, and nobody can work it out before its day. The ladder ranks
clean wins (nothing of Game.aids, no death) by time, then wins with help, marked; a player's first finished
game of a board is their entry (the store keeps the first), later ones are practice.

Names: a player may choose the name the ladders show (app.core.names); one who has not is "anonymous" with
a short tag that is the same wherever they appear, and tells nothing of their id.
"""

from __future__ import annotations

import datetime
import hashlib
import hmac
import json
import random
from dataclasses import dataclass
from typing import Annotated

from pydantic import Field, StrictBool, StrictInt, StrictStr, TypeAdapter, ValidationError
from typing_extensions import TypedDict

from app.core.game import LAYOUT_SEEN, PRESETS, Game, Invalid
from app.core.languages import lazy_gettext
from app.core.names import ANONYMOUS
from app.core.stored import Key, schema
from app.modes import MODES, get_mode
from app.results.records import Accuracy, Seconds, accuracy_of, fixed_layout_figures

DAILY_SIZE = PRESETS["expert"]
# A ladder page shows at most this many entries, and the player's own wherever it stands.
LADDER_LENGTH = 100
# How far back the calendar of past days looks.
HISTORY_DAYS = 56
CLEAN, ASSISTED, OTHER = 0, 1, 2  # the groups a ladder ranks entries in (app.store: enter_ladder)
EPOCH = datetime.date(1970, 1, 1)


@dataclass(frozen=True)
class DailyBoard:
    """One board of one day: its date, the mode it is played in, and its ladder's key (Game.daily)."""

    date: datetime.date
    mode: str

    @property
    def key(self) -> str:
        return f"{self.date.isoformat()}/{self.mode}"

    @property
    def title(self) -> str:
        return get_mode(self.mode).daily_title

    @property
    def size(self) -> tuple[int, int, int]:
        """Width, height and mines (read when asked: a test may play smaller boards of the day)."""
        return DAILY_SIZE

    def game(self, secret: bytes) -> Game:
        """The board as a new game nobody is seated at: the same on every host holding the server's key."""
        rules = get_mode(self.mode)
        assert rules.daily is not None, f"{self.mode} has no board of the day"
        width, height, mines = self.size
        seed = hmac.new(secret, f"kaboom daily|{self.key}".encode(), hashlib.sha256).digest()
        game = rules.shared_board(
            width, height, mines, rules.options(**rules.daily), rng=random.Random(seed), secret=secret
        )
        game.daily = self.key
        game.sealed = True
        return game


def day_of(now: float) -> datetime.date:
    """The UTC day a moment (time.time() seconds) falls in: boards change at 00:00 UTC."""
    return datetime.datetime.fromtimestamp(now, datetime.UTC).date()


def boards_of(date: datetime.date) -> list[DailyBoard]:
    """The day's boards, in the registry's order of their modes."""
    return [DailyBoard(date, name) for name, mode in MODES.items() if mode.daily is not None]


def board_named(key: str, today: datetime.date) -> DailyBoard:
    """The board a ladder key names ("2026-11-26/cruel"); Invalid for a malformed key, a mode without a board of
    the day, or a day still to come (nobody may see its board before it)."""
    date_text, _, mode = key.partition("/")
    date = parse_date(date_text, today)
    if mode not in {board.mode for board in boards_of(date)}:
        expected = ", ".join(board.mode for board in boards_of(date))
        raise Invalid(
            lazy_gettext(
                "no board of the day in mode %(mode)s: expected one of %(modes)s", mode=repr(mode), modes=expected
            )
        )
    return DailyBoard(date, mode)


def stored_board(key: str) -> DailyBoard | None:
    """The board a game's Game.daily names, as kept; None for a key that names none (data from elsewhere)."""
    date_text, _, mode = key.partition("/")
    try:
        date = datetime.date.fromisoformat(date_text)
    except ValueError:
        return None
    return DailyBoard(date, mode) if mode in MODES and MODES[mode].daily is not None else None


def parse_date(text: str, today: datetime.date) -> datetime.date:
    """A day as YYYY-MM-DD, no later than today; Invalid otherwise."""
    try:
        date = datetime.date.fromisoformat(text)
    except ValueError:
        raise Invalid(lazy_gettext("%(text)s is not a date: expected YYYY-MM-DD", text=repr(text[:40]))) from None
    if len(text) != 10:
        raise Invalid(lazy_gettext("%(text)s is not a date: expected YYYY-MM-DD", text=repr(text[:40])))
    if date > today:
        raise Invalid(lazy_gettext("%(date)s is still to come: its boards are made on the day", date=date.isoformat()))
    if date < EPOCH:
        raise Invalid(lazy_gettext("%(date)s is before there were boards of the day", date=date.isoformat()))
    return date


# ----- names -------------------------------------------------------------------------------------------


def anonymous_name(player: str, secret: bytes) -> str:
    """What a player without a name is called: the same tag wherever they appear; the id stays secret."""
    tag = hmac.new(secret, f"kaboom anonymous|{player}".encode(), hashlib.sha256).hexdigest()[:4]
    return f"{ANONYMOUS} {tag}"


# ----- ladder entries ----------------------------------------------------------------------------------


@schema
class Entry(TypedDict):
    """A player's first finished game of a board of the day, as its ladder keeps it."""

    won: StrictBool
    clean: StrictBool  # no aid (Game.aids) and no death
    aids: list[Annotated[StrictStr, Field(max_length=40)]]
    deaths: Annotated[StrictInt, Field(ge=0)]
    seconds: Seconds
    finished_at: Seconds
    bbbv: Annotated[StrictInt, Field(ge=0)] | None
    bbbv_per_second: Annotated[float, Field(ge=0, allow_inf_nan=False)] | None
    accuracy: Accuracy | None
    game_id: Annotated[StrictStr, Field(pattern=r"^[A-Za-z0-9_-]{1,64}$")]
    replay: Key | None  # the key of the game's shared replay (its link: /replays/{game_id}/{replay})


ENTRY = TypeAdapter(Entry)


def entry_of(game_id: str, game: Game) -> Entry:
    """A finished game of a board of the day as its ladder entry."""
    figures = fixed_layout_figures(game)
    accuracy = accuracy_of(game)
    won = game.status == "won"
    # A board whose layout the player saw in another game (app.service marks it) is no test; games kept before
    # that mark was an aid have it in their state alone.
    aids = sorted({*game.aids, *([LAYOUT_SEEN] if get_mode(game.mode).layout_seen(game) else [])})
    return {
        "won": won,
        "clean": won and not aids and game.deaths == 0 and game.hints == 0,
        "aids": aids,
        "deaths": game.deaths,
        "seconds": game.elapsed(game.finished_at or 0.0),
        "finished_at": game.finished_at or 0.0,
        "bbbv": figures[0] if figures else None,
        "bbbv_per_second": figures[1] if figures else None,
        "accuracy": float(accuracy) if accuracy is not None else None,
        "game_id": game_id,
        "replay": game.share,
    }


def group_of(entry: Entry) -> int:
    return CLEAN if entry["clean"] else ASSISTED if entry["won"] else OTHER


def millis_of(entry: Entry) -> int:
    return round(entry["seconds"] * 1000)


def read_entry(text: str) -> Entry | None:
    """An entry as stored; None for one that does not read (left out and counted, never shown half)."""
    try:
        return ENTRY.validate_python(json.loads(text))
    except (ValueError, ValidationError):
        return None


# ----- streaks -----------------------------------------------------------------------------------------


def days_won(entries: dict[str, str]) -> set[datetime.date]:
    """The days on which one of the player's entries (ladder key -> entry) is a win."""
    won = set()
    for key, text in entries.items():
        entry = read_entry(text)
        date_text = key.partition("/")[0]
        try:
            date = datetime.date.fromisoformat(date_text)
        except ValueError:
            continue
        if entry is not None and entry["won"]:
            won.add(date)
    return won


def streaks(won: set[datetime.date], today: datetime.date) -> tuple[int, int]:
    """(current, best) runs of days won in a row. The current run still stands on a day not yet won: it ends
    at today or yesterday."""
    best = run = 0
    previous = None
    for date in sorted(won):
        run = run + 1 if previous is not None and date - previous == datetime.timedelta(days=1) else 1
        best = max(best, run)
        previous = date
    last = max(won) if won else None
    current = run if last is not None and today - last <= datetime.timedelta(days=1) else 0
    return current, best
