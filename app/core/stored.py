"""The schema of a stored game: whatever a store reads back is checked here, whole, before anyone plays it.

A store keeps a game's state as one JSON object (Game.to_json) and its undo
records apart, one JSON object each. What comes back, written by this
release, by the one before or by a hand in the database, either passes every
check below or is refused with a message naming the field; the store raises
that as Corrupt and the player is told the game is damaged. The rules, the
views and undo then never meet a value they would choke on, so a damaged
game is neither answered with a crash nor played on and saved. `dump` runs
the same checks before a state is written: a store never keeps what it could
not read back.

Each mode describes its own part (`state_schema`, `hidden_schema`, its
settings) with the types below, so a mode's state is checked like the rest.
Schemas are TypedDicts: what passes is the plain JSON object the game keeps,
and a game with thousands of undo records is checked about as fast as it is parsed.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping, Sequence
from typing import (
    Annotated,
    Any,
    ClassVar,
    Generic,
    Literal,
    NotRequired,
    Protocol,
    TypeVar,
    get_args,
)

from pydantic import (
    AfterValidator,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    StringConstraints,
    TypeAdapter,
    ValidationError,
    ValidationInfo,
    with_config,
)
from typing_extensions import TypedDict  # pydantic reads typing's own TypedDict only from Python 3.12

from app.core import seats as seating
from app.core.game import MAX_BOARD_SIDE, QUESTION, STATUSES, Game, Switches
from app.core.seats import Seat
from solver.position import COVERED, FLAG, MINE, NUMBERS

# JSON types exactly (no "9" for 9, no true for 1) and no field the schema does not name:
# decorate a mode's schema with it.
schema = with_config(ConfigDict(strict=True, extra="forbid"))
# Fields a later release may add to a game or an undo record are no damage: they are dropped on reading.
_lenient = with_config(ConfigDict(strict=True, extra="ignore"))


def _context(info: ValidationInfo) -> dict[str, Any]:
    """What a check needs of the game (its board's size, its mines): _checked passes it every time."""
    assert info.context is not None
    return info.context


def _on_the_board(index: int, info: ValidationInfo) -> int:
    cells = _context(info)["cells"]
    if index >= cells:
        raise ValueError(f"cell {index} is off the board of {cells} cells")
    return index


def _key_on_the_board(key: str, info: ValidationInfo) -> str:
    _on_the_board(int(key), info)
    return key


# A cell by its index (y * width + x); checking one needs the board's size as context {"cells": width * height}.
Cell = Annotated[StrictInt, Field(ge=0), AfterValidator(_on_the_board)]
# JSON keys are text: a cell as a key is its index written plainly ("12", never "012" or "+12").
CellKey = Annotated[str, StringConstraints(pattern=r"^(0|[1-9][0-9]{0,5})$"), AfterValidator(_key_on_the_board)]


def _a_layout_of_the_game(mines: list[int], info: ValidationInfo) -> list[int]:
    if mines != sorted(set(mines)):
        raise ValueError("a layout lists each mine once, in order")
    expected = _context(info)["mines"]
    if len(mines) != expected:
        raise ValueError(f"{len(mines)} mines in the layout of a game with {expected}")
    return mines


Count = Annotated[StrictInt, Field(ge=0)]
# SQLite keeps the version in a 64-bit column too, and each change adds one.
# A fixed layout a mode keeps secret: its mines, each once, as many as the game has (context {"cells", "mines"}).
Layout = Annotated[list[Cell], AfterValidator(_a_layout_of_the_game)]
Version = Annotated[StrictInt, Field(ge=0, lt=2**62)]
Side = Annotated[StrictInt, Field(ge=2, le=MAX_BOARD_SIDE)]
# Seconds of the store's clock: bounded, so that the time a game took is a finite number to show.
Time = Annotated[float, Field(ge=0, le=1e12, allow_inf_nan=False)]
# What a cell shows: covered, a number, or a mine shown without a loss (help found it); a lost game
# shows its mines through shown_mines, not in cells.
# mypy reads only literal values in Literal[...], not the constants that name them: the asserts below keep
# the two the same.
Symbol = Literal[".", "0", "1", "2", "3", "4", "5", "6", "7", "8", "*"]
Symbols = Annotated[str, StringConstraints(pattern=f"^[{re.escape(COVERED + MINE)}0-8]*$")]
Mark = Literal["F", "?"]
MarkOrNone = Literal["F", "?", ""]
Status = Literal["playing", "won", "lost"]
assert get_args(Symbol) == (COVERED, *NUMBERS, MINE)
assert get_args(Mark) == (FLAG, QUESTION) and get_args(MarkOrNone) == (FLAG, QUESTION, "")
assert get_args(Status) == STATUSES


@schema
class NoState(TypedDict):
    """The state of a mode that keeps none of its own."""


class ModeSchemas(Protocol):
    """What the schema needs of a mode (app.modes.base.Mode has it)."""

    name: ClassVar[str]
    options_class: ClassVar[type[Switches]]
    state_schema: ClassVar[type]
    hidden_schema: ClassVar[type | None]
    secret_optional: ClassVar[bool]

    def legacy_seats(self, credentials: list[str], state: dict[str, Any]) -> list[Seat]: ...

    def upgraded_state(self, state: dict[str, Any]) -> dict[str, Any]: ...


@_lenient
class _Board(TypedDict):
    """Read first: the checks of every other field depend on the board's size and the mode."""

    width: Side
    height: Side
    mode: StrictStr


ModeState = TypeVar("ModeState")


@_lenient
class _Recorded(TypedDict, Generic[ModeState]):
    """What an undo record keeps besides cells and marks (app.core.game.RECORDED), as the game has it too."""

    status: Status
    exploded: Cell | None
    shown_mines: list[Cell] | None
    state: ModeState  # the mode's state_schema
    started_at: Time | None
    finished_at: Time | None
    last_cell: Cell | None


@schema
class _MoveRecord(TypedDict):
    """The move an undo record takes back, as asked (app.core.game.Move.recorded); records before issue 25 have none."""

    action: StrictStr
    x: NotRequired[Annotated[StrictInt, Field(ge=0, lt=MAX_BOARD_SIDE)]]
    y: NotRequired[Annotated[StrictInt, Field(ge=0, lt=MAX_BOARD_SIDE)]]
    mark: NotRequired[StrictStr]
    seat: NotRequired[Annotated[StrictInt, Field(ge=0)]]
    bot: NotRequired[StrictBool]


@_lenient
class _Step(_Recorded[ModeState]):
    """A step of a game's story taken back by undo (app.core.game.undone_steps): the values it led to."""

    cells: dict[CellKey, Symbol]
    marks: dict[CellKey, MarkOrNone]
    move: NotRequired[_MoveRecord]


@_lenient
class _Record(_Step[ModeState]):
    """An undo record: the values before its move (cells, marks, the recorded fields), and what was
    undone between the position before it and its move."""

    undone: NotRequired[list[_Step[ModeState]]]
    version: NotRequired[Version]  # the game's before its action; records before issue 26 have none


Chance = Annotated[str, StringConstraints(pattern=r"^(0|[1-9][0-9]*)/[1-9][0-9]*$", max_length=200)]


@schema
class _Grade(TypedDict):
    """A move's grade as app.results.review keeps it (Grade.to_json)."""

    kind: Annotated[StrictStr, StringConstraints(max_length=20)]
    chance: NotRequired[Chance]
    best: NotRequired[Chance]
    example: NotRequired[Cell]
    proof: NotRequired[list[Cell]]
    uses_count: NotRequired[StrictBool]


@schema
class _Review(TypedDict):
    """A finished game's grades, one per step of its story, and the accuracy they add up to."""

    grades: list[_Grade]
    accuracy: Chance | None


# A seat's number as a JSON key (Game.views).
SeatKey = Annotated[str, StringConstraints(pattern=r"^(0|[1-9][0-9]?)$")]

# A board of the day's ladder (Game.daily, app.results.daily): its date and mode.
DailyKey = Annotated[str, StringConstraints(pattern=r"^[0-9]{4}-[0-9]{2}-[0-9]{2}/[a-z][a-z-]{0,19}$")]

# What helped a player (Game.aids): one of app.core.game.AIDS or the name of a setting.
Aid = Annotated[str, StringConstraints(pattern=r"^[a-z_]{1,40}$")]

# A key of a link: a shared replay's, an invitation's, a room's.
Key = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9_-]{16,64}$")]


@schema
class _RoomLink(TypedDict):
    """The room a game is played in (Game.room)."""

    id: Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9_-]{16,64}$")]
    kind: Annotated[StrictStr, StringConstraints(min_length=1, max_length=20)]
    invite: Key
    # Each seat's colour in the room, one digit per seat (a co-op game marks each player's last move in it).
    colours: NotRequired[Annotated[str, StringConstraints(pattern=r"^[0-7]{0,64}$")]]


@_lenient
class _State(_Recorded[ModeState]):
    width: Side
    height: Side
    mines: Count
    mode: StrictStr
    options: dict[StrictStr, StrictBool]
    cells: Symbols
    marks: dict[CellKey, Mark]
    hidden: dict[str, Any] | None  # the mode's hidden_schema, checked once the mode is known
    hints: Count
    deaths: NotRequired[Count]  # games stored before deaths were counted have none
    version: Version
    seats: list[dict[StrictStr, StrictStr]]  # app.core.seats.to_json
    undone: NotRequired[list[_Step[ModeState]]]
    review: NotRequired[_Review]
    share: NotRequired[Key]
    room: NotRequired[_RoomLink]
    opens_at: NotRequired[Time]
    views: NotRequired[dict[SeatKey, dict[StrictStr, StrictBool]]]
    daily: NotRequired[DailyKey]
    aids: NotRequired[
        Annotated[list[Annotated[str, StringConstraints(pattern=r"^[a-z_]{1,40}$")]], Field(max_length=40)]
    ]
    sealed: NotRequired[StrictBool]


def read_state(data: str | bytes | Any, modes: Mapping[str, ModeSchemas]) -> Game:
    """A stored game's state (JSON text, or the object in it) as a Game without history; ValueError if it is wrong."""
    if isinstance(data, (str, bytes)):
        data = _json(data, "the game")
    data = _upgraded(data)
    board = _checked(_Board, data, {})
    mode = modes.get(board["mode"])
    if mode is None:
        raise _malformed(f"mode: unknown mode {board['mode']!r}")
    data = _typed_seats(data, mode)
    context = {"cells": board["width"] * board["height"]}
    record = _checked(_of_mode(_State, mode), data, context)
    cells = record["cells"]
    if len(cells) != context["cells"]:
        raise _malformed(f"cells: {len(cells)} symbols on a {record['width']}x{record['height']} board")
    if not 1 <= record["mines"] < len(cells):
        raise _malformed(f"mines: {record['mines']} on a board of {len(cells)} cells")
    if cells.count(COVERED) + cells.count(MINE) < record["mines"]:
        raise _malformed(f"mines: {record['mines']} mines but only {cells.count(COVERED)} covered cells")
    if cells.count(MINE) > record["mines"]:
        raise _malformed(f"cells: {cells.count(MINE)} mines shown on a board of {record['mines']}")
    revealed = next((key for key in record["marks"] if cells[int(key)] != COVERED), None)
    if revealed is not None:
        raise _malformed(f"marks.{revealed}: a mark on a revealed cell")
    unknown = sorted(set(record["options"]) - set(mode.options_class.names()))
    if unknown:
        raise _malformed(f"options.{unknown[0]}: not a setting of {mode.name} games")
    hidden = record["hidden"]
    if hidden is None and mode.hidden_schema is not None and not mode.secret_optional:
        raise _malformed(f"hidden: a {mode.name} game keeps a secret, and this one has none")
    if hidden is not None:
        if mode.hidden_schema is None:
            raise _malformed(f"hidden: {mode.name} games keep no secret")
        hidden = _checked(mode.hidden_schema, hidden, {**context, "mines": record["mines"]}, "hidden")
    try:
        seats = seating.from_json(record["seats"])
    except ValueError as error:
        raise _malformed(str(error)) from None
    views = {int(seat): chosen for seat, chosen in record.get("views", {}).items()}
    for seat, chosen in views.items():
        if seat >= len(seats):
            raise _malformed(f"views.{seat}: a game of {len(seats)} seats")
        strange = sorted(set(chosen) - mode.options_class.own())
        if strange:
            raise _malformed(f"views.{seat}.{strange[0]}: not a setting each player chooses in {mode.name} games")
    return Game(
        width=record["width"],
        height=record["height"],
        mines=record["mines"],
        mode=record["mode"],
        # A setting added since the game was stored takes its default.
        options=mode.options_class(**record["options"]),
        cells=list(cells),
        marks={int(key): mark for key, mark in record["marks"].items()},
        status=record["status"],
        exploded=record["exploded"],
        shown_mines=record["shown_mines"],
        state=record["state"],
        hidden=hidden,
        hints=record["hints"],
        deaths=record.get("deaths", 0),
        started_at=record["started_at"],
        finished_at=record["finished_at"],
        last_cell=record["last_cell"],
        version=record["version"],
        seats=seats,
        undone=record.get("undone", []),
        review=record.get("review"),
        share=record.get("share"),
        room=record.get("room"),
        opens_at=record.get("opens_at"),
        views=views,
        daily=record.get("daily"),
        aids=record.get("aids", []),
        sealed=record.get("sealed", False),
    )


def read_records(
    game: Game, records: Sequence[str | bytes | Any], modes: Mapping[str, ModeSchemas]
) -> list[dict[str, Any]]:
    """A game's undo records as stored (JSON text, or objects), checked against the game; ValueError if any is wrong."""
    mode = modes[game.mode]
    schema = _of_mode(_Record, mode)
    context = {"cells": game.width * game.height}
    return [_record(schema, mode, record, context, number) for number, record in enumerate(records)]


def _of_mode(generic: Any, mode: ModeSchemas) -> Any:
    """`generic` with the mode's state_schema as its ModeState: a type known only once the game's mode is."""
    return generic[mode.state_schema]


def _record(
    schema: Any, mode: ModeSchemas, record: str | bytes | Any, context: dict[str, Any], number: int
) -> dict[str, Any]:
    if isinstance(record, (str, bytes)):
        try:
            # Parsed and checked in one pass: a big game has thousands of records.
            return adapter(schema).validate_json(record, context=context)
        except ValidationError:
            # Records of the release before are shaped otherwise, and pass once upgraded.
            record = _json(record, f"undo record {number}")
    return _checked(schema, _upgraded_record(record, mode), context, f"undo record {number}")


def dump(game: Game, modes: Mapping[str, ModeSchemas]) -> str:
    """A game's state as stored, if it reads back as it is (ValueError otherwise)."""
    data = game.to_json()
    read_state(data, modes)
    return json.dumps(data)


@functools.cache
def adapter(schema: Any) -> TypeAdapter:
    """The validator of a schema, built once: building one costs milliseconds, using it microseconds."""
    return TypeAdapter(schema)


def _checked(schema: Any, data: Any, context: dict[str, Any], where: str = "") -> Any:
    try:
        return adapter(schema).validate_python(data, context=context)
    except ValidationError as error:
        raise _malformed(_first_problem(error, where)) from None


def _first_problem(error: ValidationError, where: str) -> str:
    problems = error.errors(include_url=False)
    first = problems[0]
    field = ".".join(str(part) for part in (where, *first["loc"]) if part != "") or "the game"
    shown = repr(first["input"])
    shown = shown if len(shown) <= 60 else shown[:57] + "..."
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    return f"{field}: {first['msg']}, not {shown}{more}"


def _json(text: str | bytes, what: str) -> Any:
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as error:  # a UnicodeDecodeError is a ValueError
        raise _malformed(f"{what} is not JSON: {error}") from None


def _malformed(problem: str) -> ValueError:
    return ValueError(f"stored game is malformed: {problem}")


def _upgraded(data: Any) -> Any:
    """A game's state in today's shape, whatever release wrote it.

    Games stored before modes had their own state kept a top-level `moves`
    (now `version`), `layout` (now `shown_mines`) and `forced_guesses` (now in
    `state`), and had no seats; an upgrade loses none of them. What is missing
    stays missing, for the schema to name.
    """
    if not isinstance(data, dict) or "version" in data or "moves" not in data:
        return data
    data = dict(data)
    data["version"] = data.pop("moves")
    if "layout" in data:
        data["shown_mines"] = data.pop("layout")
    if "forced_guesses" in data:
        data["state"] = {"forced_guesses": data.pop("forced_guesses")}
    data.setdefault("hidden", None)
    data.setdefault("seats", [])
    return data


def _typed_seats(data: Any, mode: ModeSchemas) -> Any:
    """Releases before typed seats stored the seats' credentials (app.core.seats.credentials) as the seats, and a
    mode with seats kept in its state how they were filled: the mode reads them back as seats, and its state
    in today's shape."""
    stored = data.get("seats") if isinstance(data, dict) else None
    if not (isinstance(stored, list) and stored and all(isinstance(credential, str) for credential in stored)):
        return data
    state = data.get("state") if isinstance(data.get("state"), dict) else {}
    try:
        seats = mode.legacy_seats(stored, state)
    except ValueError as error:
        raise _malformed(str(error)) from None
    return {**data, "seats": seating.to_json(seats), "state": mode.upgraded_state(state)}


def _upgraded_record(record: Any, mode: ModeSchemas) -> Any:
    if not isinstance(record, dict):
        return record
    record = dict(record)
    if "layout" in record:
        record["shown_mines"] = record.pop("layout")
        record["state"] = {"forced_guesses": record.pop("forced_guesses", 0)}
    if isinstance(record.get("state"), dict):
        record["state"] = mode.upgraded_state(record["state"])
    return record
