"""The JSON API's request and response shapes."""

from __future__ import annotations

import dataclasses
from collections.abc import Hashable
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Literal, TypedDict

from pydantic import BaseModel, ConfigDict, Field, create_model, model_validator

from app.core.game import AIDS, MAX_BOARD_SIDE, Choice, Game
from app.core.names import NAME_LENGTH
from app.core.seats import OPPONENTS
from app.modes import DEFAULT_MODE, MODES, get_mode
from app.results.records import Record, accuracy_of, fixed_layout_figures
from app.results.review import BEST_GUESS_MARGIN, Review
from app.rooms import KINDS, MAX_PLAYERS
from app.rooms.base import COLOURS
from app.store import Listing
from app.web.faces import face_of

# What every request body shares: no field the API does not know, and no conversions: pydantic
# would otherwise read true as 1, 9.0 as 9 and "9" as 9, so a slip in a script could play a move.
STRICT = ConfigDict(extra="forbid", strict=True)


class SeatsAsked(TypedDict):
    """Who fills the other seats of a new game, as GameService.create takes it."""

    opponent: str | None
    level: str | None


class NewGameBase(BaseModel):
    """What every new game is asked: its size, or a board id, and its mode; `new_game_model` adds what the
    modes ask (their settings, their choices among settings, who fills the other seats)."""

    model_config = STRICT

    width: int | None = Field(None, ge=2, le=MAX_BOARD_SIDE, description="required unless board_id is given")
    height: int | None = Field(None, ge=2, le=MAX_BOARD_SIDE, description="required unless board_id is given")
    mines: int | None = Field(None, ge=1, description="required unless board_id is given")
    board_id: str | None = Field(
        None,
        max_length=64,
        description="classic and help modes: play the board a game's board_id names (its size, mines and first click)",
    )
    # Checked against the registry when a game is made (an unknown mode is a 422 naming the modes there are).
    mode: str = Field(DEFAULT_MODE, json_schema_extra={"enum": list(MODES)})

    @model_validator(mode="after")
    def _a_size_or_a_board(self) -> NewGameBase:
        if self.board_id is None and None in (self.width, self.height, self.mines):
            raise ValueError("width, height and mines are required unless board_id is given")
        return self

    def settings(self) -> dict[str, bool]:
        """The settings the caller gave, by the modes' names; a mode without one of them refuses it."""
        return asked_settings(self)

    def seating(self) -> SeatsAsked:
        """Who fills the other seats, as asked (SEAT_FIELDS)."""
        return SeatsAsked(opponent=getattr(self, "opponent", None), level=getattr(self, "level", None))


def asked_settings(body: BaseModel) -> dict[str, bool]:
    """The settings a request gave, by the modes' names (its choices among settings as the settings they are)."""
    given: dict[str, bool] = {}
    for name in body.model_fields_set:
        value = getattr(body, name)
        if name in CHOICES:
            given.update(CHOICES[name].values[value])
        elif name in SETTINGS_ASKED:
            given[name] = value
    return given


def _joined(notes: list[str]) -> str | None:
    return "; ".join(notes) or None


def _by_modes(notes: list[tuple[str, Hashable]]) -> list[tuple[str, Any]]:
    """(modes, note) for notes said of modes, each note once with every mode it is said of ("flags and
    cruel-flags": a variant shares its mode's notes)."""
    modes: dict[Hashable, list[str]] = {}
    for mode, note in notes:
        modes.setdefault(note, []).append(mode)
    return [(" and ".join(names), note) for note, names in modes.items()]


# What the registered modes ask when a game is made, each once.
CHOICES: dict[str, Choice] = {name: choice for mode in MODES.values() for name, choice in mode.choices.items()}
SETTINGS_ASKED: dict[str, tuple[bool, str]] = {
    name: asked for mode in MODES.values() for name, asked in mode.options_class.asked().items()
}
SEAT_FIELDS = ("opponent", "level")
# Where the API lists who fills the other seats: after the settings every game has (undo, 40), before the
# rules of the modes with seats.
SEAT_FIELDS_ORDER = 45


def new_game_model() -> type[NewGameBase]:
    """The new-game request as the registered modes shape it, its fields in the order of the settings."""
    return create_model("NewGameIn", __base__=NewGameBase, **asked_fields(seats=True))


def asked_fields(seats: bool) -> dict[str, Any]:
    """What the registered modes ask of a new game beyond its size, in the order of the settings: their
    choices among settings, their settings, and (`seats`) who fills the other seats."""
    listed: list[tuple[int, int, str, Any]] = []
    for name, choice in CHOICES.items():
        listed.append(
            (
                choice.order,
                0,
                name,
                (Literal[tuple(choice.values)], Field(choice.default, description=choice.description)),
            )
        )
    for mode in MODES.values():
        for item in dataclasses.fields(mode.options_class):
            if item.name in SETTINGS_ASKED and item.name not in {name for _, _, name, _ in listed}:
                default, said = SETTINGS_ASKED[item.name]
                listed.append((item.metadata["order"], 1, item.name, (bool, Field(default, description=said or None))))
    seated = [mode for mode in MODES.values() if mode.seat_count > 1]
    if seated and seats:
        levels = tuple(dict.fromkeys(level for mode in seated for level in mode.levels))
        notes = {
            name: _joined(
                [
                    f"{modes}: {note}"
                    for modes, note in _by_modes(
                        [(mode.name, mode.seat_notes[name]) for mode in seated if name in mode.seat_notes]
                    )
                ]
            )
            for name in SEAT_FIELDS
        }
        listed.append(
            (SEAT_FIELDS_ORDER, 0, "opponent", (Literal[OPPONENTS] | None, Field(None, description=notes["opponent"])))
        )
        listed.append(
            (SEAT_FIELDS_ORDER, 1, "level", (Literal[levels] | None, Field(None, description=notes["level"])))
        )
    return {name: field for _, _, name, field in sorted(listed, key=lambda item: item[:2])}


def move_model() -> type[BaseModel]:
    """A move as the registered modes take them: every mode's actions, and what only some modes take."""
    actions = tuple(dict.fromkeys(action for mode in MODES.values() for action in mode.board_actions()))
    said: list[tuple[str, Hashable]] = [
        (mode.name, (action, note)) for mode in MODES.values() for action, note in mode.action_notes.items()
    ]
    notes = [f'"{action}" in {modes} games only: {note}' for modes, (action, note) in _by_modes(said)]
    # Any to mypy: pydantic's stubs take only types it can check, and Literal[actions] is made at run time.
    fields: dict[str, Any] = dict(
        action=(Literal[actions], Field(description=_joined(notes))),
        x=(int | None, None),
        y=(int | None, None),
        mark=(
            Literal["flag", "question", "none"] | None,
            Field(None, description='for "flag": set this mark instead of cycling flag, ?, none'),
        ),
    )
    return create_model("MoveIn", __config__=STRICT, **fields)


class OptionsBase(BaseModel):
    model_config = STRICT

    def changes(self) -> dict[str, bool]:
        return {name: value for name, value in self.model_dump().items() if value is not None}


def options_model() -> type[OptionsBase]:
    """A change of settings: any setting of a registered mode that is not a rule fixed when the game is made."""
    orders: dict[str, int] = {}
    for mode in MODES.values():
        for item in dataclasses.fields(mode.options_class):
            if not item.metadata["fixed"]:
                orders.setdefault(item.name, item.metadata["order"])
    names = sorted(orders, key=lambda name: orders[name])
    fields: dict[str, Any] = {name: (bool | None, None) for name in names}
    return create_model("OptionsIn", __base__=OptionsBase, **fields)


class NewRoomBase(BaseModel):
    """A new room: its kind, the board its games are played on, and the maker's name and colour;
    `new_room_model` adds the modes' settings, as a new game asks them."""

    model_config = STRICT

    kind: str = Field(
        json_schema_extra={"enum": list(KINDS)},
        description=_joined([f"{kind.name}: {kind.summary}" for kind in KINDS.values()]),
    )
    mode: str = Field(
        DEFAULT_MODE, json_schema_extra={"enum": [name for name, mode in MODES.items() if mode.seat_count == 1]}
    )
    width: int = Field(ge=2, le=MAX_BOARD_SIDE)
    height: int = Field(ge=2, le=MAX_BOARD_SIDE)
    mines: int = Field(ge=1)
    name: str = Field(
        "", max_length=NAME_LENGTH, description="the name the others see (empty: the one of the player's latest room)"
    )
    colour: int | None = Field(None, ge=0, lt=MAX_PLAYERS, description=f"0 to {MAX_PLAYERS - 1}: {', '.join(COLOURS)}")

    def settings(self) -> dict[str, bool]:
        """The settings the caller gave, by the modes' names (as a new game takes them)."""
        return asked_settings(self)


def new_room_model() -> type[NewRoomBase]:
    return create_model("NewRoomIn", __base__=NewRoomBase, **asked_fields(seats=False))


class JoinRoomIn(BaseModel):
    model_config = STRICT

    invite: str = Field(max_length=64, description="the key of the room's invitation (the `invite` its maker got)")
    name: str = Field(
        "", max_length=NAME_LENGTH, description="the name the others see (empty: the one of the player's latest room)"
    )
    colour: int | None = Field(
        None, ge=0, lt=MAX_PLAYERS, description="a colour nobody in the room has (else the first free one)"
    )


class RoomPlayerOut(BaseModel):
    name: str
    colour: int = Field(description=f"0 to {MAX_PLAYERS - 1}: {', '.join(COLOURS)}")
    you: bool = Field(description="the caller")
    present: bool = Field(description="their page is open now")
    racing: bool = Field(description="plays in the current round (a race's late joiner watches until the rematch)")
    progress: float = Field(description="the share of the board's safe cells their game has opened (0 to 1)")
    deaths: int = Field(description="losses they took back with undo")
    status: Literal["playing", "won", "lost"] | None = Field(description="their game's; null without one")
    seconds: float | None = Field(description="the time they cleared the board in, from the start; null until then")
    rank: int | None = Field(description="their place among those who cleared it")
    game: str | None = Field(
        description="their game's id, where the caller may look at it (in a race: once the caller's own board "
        "can change no more)"
    )


class RoomEventOut(BaseModel):
    name: str
    colour: int
    what: str = Field(description="joined, left, started, undo, hint, show, or a mode's action")
    at: float


class RoomOut(BaseModel):
    id: str
    kind: str
    mode: str
    width: int
    height: int
    mines: int
    settings: dict[str, bool]
    invite: str | None = Field(description="the key to join by (POST .../join), for the room's members")
    link: str | None = Field(description="the invitation's address for a browser, for the room's members")
    players: list[RoomPlayerOut]
    watching: bool = Field(description="the caller watches (holds the link, has not joined)")
    phase: str | None = Field(description="a race: lobby until its maker starts it, then racing")
    round: int | None = Field(description="a race: rounds started (a rematch adds one)")
    starts_at: float | None = Field(description="a race: when the round's boards open (seconds since the epoch)")
    over: bool = Field(description="the round has ended: co-op, the shared game; a race, every racer's")
    may_start: bool = Field(description="the caller may start the race (or its rematch): POST .../start")
    log: list[RoomEventOut] = Field(description="what happened lately, oldest first")
    game: dict[str, Any] | None = Field(
        description="co-op: the shared game; a race: the caller's own, once started (as GET /api/games/{id} answers)"
    )


def room_out(view: Any, link: str | None, game: dict[str, Any] | None) -> RoomOut:
    room = view.room
    return RoomOut(
        id=view.room_id,
        kind=room.kind,
        mode=room.mode,
        width=room.width,
        height=room.height,
        mines=room.mines,
        settings=room.settings,
        invite=room.invite if not view.watching else None,
        link=link if not view.watching else None,
        players=[
            RoomPlayerOut(
                name=row.name,
                colour=row.colour,
                you=view.viewer is not None and row.member == view.viewer,
                present=row.present,
                racing=row.racing,
                progress=row.progress,
                deaths=row.deaths,
                status=row.status or None,
                seconds=row.seconds,
                rank=row.rank,
                game=row.game,
            )
            for row in view.standings
        ],
        watching=view.watching,
        phase=view.phase,
        round=view.round,
        starts_at=view.opens_at,
        over=view.over,
        may_start=view.may_start,
        log=[RoomEventOut(**event) for event in room.log],
        game=game,
    )


if TYPE_CHECKING:
    # mypy cannot read models made at run time: the routes' bodies as it checks them.
    NewGameIn = NewGameBase
    NewRoomIn = NewRoomBase
    OptionsIn = OptionsBase

    class MoveIn(BaseModel):
        action: str
        x: int | None
        y: int | None
        mark: str | None

else:
    NewGameIn = new_game_model()
    NewRoomIn = new_room_model()
    MoveIn = move_model()
    OptionsIn = options_model()


# A game as the API answers it: what every game has, then each face's part (app.web.faces), after the
# field its face names.
GAME_FIELDS: dict[str, Any] = dict(
    id=(str, ...),
    mode=(str, ...),
    width=(int, ...),
    height=(int, ...),
    mines=(int, ...),
    status=(Literal["playing", "won", "lost"], ...),
    board=(
        list[str],
        Field(
            description="H rows: '.' covered, 'F' flagged, '0'-'8' revealed; after the end '*' marks the mines the "
            "game shows"
        ),
    ),
    exploded=(list[int] | None, Field(description="[x, y] of the mine that ended the game")),
    forced_guesses=(
        int,
        Field(description="cruel mode: guesses the rules made safe because no safe cell existed (0 in other modes)"),
    ),
    hints=(int, ...),
    deaths=(int, Field(description="losses taken back with undo")),
    flags=(int, ...),
    elapsed=(float, ...),
    version=(int, Field(description="the game's version: every move, setting changed or hint asked adds one")),
    moves=(int, Field(description="the old name of `version`, kept for scripts written before it")),
    can_undo=(bool, ...),
    options=(dict[str, bool], ...),
    board_id=(
        str | None,
        Field(
            None,
            description="fixed layouts, once the first click has dealt it: the id that plays this board again "
            "(POST /api/games)",
        ),
    ),
    start=(
        list[int] | None,
        Field(
            None,
            description="a board played from its id (a race's, say) before its first click: the [x, y] its layout "
            "was dealt for, where the first click opens it",
        ),
    ),
    bbbv=(
        int | None,
        Field(None, description="a won classic or help game: its 3BV, the fewest clicks that clear the board"),
    ),
    bbbv_per_second=(float | None, Field(None, description="a won classic or help game: 3BV divided by its time")),
    clicks=(
        int | None,
        Field(None, description="a won classic or help game: the reveals, chords and flags it took"),
    ),
    bot_moves=(
        int,
        Field(
            0,
            description="classic and help games: moves the bot played (POST .../bot); such a game is left out of "
            "the records",
        ),
    ),
    aids=(
        list[str],
        Field(
            default_factory=list,
            description="what helped the player in this game so far, whatever was taken back since: "
            + ", ".join(f"{name!r} ({words})" for name, words in AIDS.items())
            + ", or the name of a setting that helps (an overlay, an assist); a game with any is no clean win on "
            "a board of the day's ladder",
        ),
    ),
)


def game_model() -> type[BaseModel]:
    fields = dict(GAME_FIELDS)
    for mode in MODES:
        face = face_of(mode)
        if face.api_field is None or face.api_model is None:
            continue
        part = (face.api_model | None, Field(None, description=face.api_description))
        names = list(fields)
        at = names.index(face.api_after) + 1 if face.api_after in names else len(names)
        fields = {
            **{name: fields[name] for name in names[:at]},
            face.api_field: part,
            **{name: fields[name] for name in names[at:]},
        }
    return create_model("GameOut", **fields)


GameOut = game_model()


class GameListOut(BaseModel):
    id: str
    damaged: bool = Field(False, description="its stored data cannot be read: it can only be deleted")
    mode: str | None = None
    width: int | None = None
    height: int | None = None
    mines: int | None = None
    status: Literal["playing", "won", "lost"] | None = None
    elapsed: float | None = None
    deaths: int | None = None
    updated_at: float = Field(description="when it was last played, in seconds since 1970 (UTC)")
    accuracy: float | None = Field(
        None,
        description="a finished game's accuracy, 0 to 1: the share of its moves that bet on something (a reveal, "
        "a chord, a flag) that were proven or the best guess; null in play, when no move bet on anything, or "
        "when it was too long to grade at its end and its review was not asked for since",
    )

    @classmethod
    def of(cls, listing: Listing, now: float) -> GameListOut:
        game = listing.game
        if game is None:
            return cls(id=listing.game_id, damaged=True, updated_at=listing.updated_at)
        accuracy = accuracy_of(game)
        return cls(
            id=listing.game_id,
            mode=game.mode,
            width=game.width,
            height=game.height,
            mines=game.mines,
            status=game.status,
            elapsed=game.elapsed(now),
            deaths=game.deaths,
            updated_at=listing.updated_at,
            accuracy=float(accuracy) if accuracy is not None else None,
        )


class AnalysisOut(BaseModel):
    status: list[str] = Field(
        description="H rows as printed by kaboom analyze: s safe, m mine, ? unknown for covered cells"
    )


class ProbabilitiesOut(BaseModel):
    probability: list[list[float | None]] | None = Field(
        description="H rows of W chances of a mine (0 to 1) for covered cells, null for revealed ones; "
        "null altogether when counting ran over its budget"
    )
    budget_exceeded: bool


class HintOut(BaseModel):
    kind: Literal["safe", "guess", "outside", "wrong_flag", "start"]
    message: str
    cell: list[int] | None
    proof: list[list[int]]
    uses_count: bool


class BotOut(BaseModel):
    x: int = Field(description="the cell the bot would open next: its column, from 0")
    y: int = Field(description="its row, from 0")
    safe: bool = Field(
        description="proven safe from what the player sees, the first click (safe by the rules), "
        "or a guess under help granted; otherwise a guess"
    )
    mine_probability: float | None = Field(
        description="0 for a proven-safe cell; a guess's exact chance of a mine, "
        "null when it could not be counted in time"
    )
    action: Literal["reveal", "help"] = Field(
        "reveal",
        description="help (Ask for help games): no cell is proven safe, "
        "so the bot asks for help before it opens the cell",
    )
    helped: bool = Field(False, description="the guess is opened under help granted: safe whatever its chance")


class BestOut(BaseModel):
    seconds: float
    finished_at: float
    bbbv: int | None
    bbbv_per_second: float | None
    accuracy: float | None = Field(description="the game's accuracy, 0 to 1; null when it has none")


class RecordOut(BaseModel):
    mode: str
    width: int
    height: int
    mines: int
    kind: str = Field(
        "", description='boards kept apart from the mode\'s usual ones: "no guessing" (classic and help), or ""'
    )
    games: int
    wins: int
    win_rate: float
    streak: int = Field(description="wins in a row up to the latest game")
    best_streak: int
    accuracy: float | None = Field(
        description="the mean accuracy of its graded games, 0 to 1 (a game's accuracy: the share of its moves that "
        "bet on something that were proven or the best guess); null when none is graded"
    )
    graded: int = Field(
        description="its games with an accuracy: graded at their end (a game too long to grade then, one where no "
        "move bet on anything, or one that ended before grading, has none)"
    )
    races: int = Field(description="its games played in a race (a room where each plays the same board)")
    firsts: int = Field(description="the races it cleared first")
    best_times: list[BestOut] = Field(description="the ten fastest wins, fastest first")

    @classmethod
    def of(cls, record: Record) -> RecordOut:
        return cls(
            mode=record.mode,
            width=record.width,
            height=record.height,
            mines=record.mines,
            kind=record.kind,
            games=record.games,
            wins=record.wins,
            win_rate=record.win_rate,
            streak=record.streak,
            best_streak=record.best_streak,
            accuracy=record.accuracy,
            graded=record.graded,
            races=record.races,
            firsts=record.firsts,
            best_times=[
                BestOut(
                    seconds=best.seconds,
                    finished_at=best.finished_at,
                    bbbv=best.bbbv,
                    bbbv_per_second=best.bbbv_per_second,
                    accuracy=best.accuracy,
                )
                for best in record.best
            ],
        )


class ErrorOut(BaseModel):
    # A sentence for refusals (a body that is not strict JSON too); a list of field errors when
    # the JSON is well formed but a field does not fit the request's shape.
    detail: str | list[dict[str, Any]]


def game_out(game_id: str, game: Game, now: float) -> dict[str, Any]:
    """What the API shows of a game: what the player has seen, never the mode's hidden state. A dict (the
    routes answer it as it is): the part of a face registered after GameOut was built (a mode the tests
    add) is in it too."""
    public = get_mode(game.mode).public_state(game)
    face = face_of(game.mode)
    part = face.api_part(game) if face.api_field is not None else None
    shown = GameOut(
        id=game_id,
        mode=game.mode,
        width=game.width,
        height=game.height,
        mines=game.mines,
        status=game.status,
        board=game.board_rows(),
        exploded=list(game.cell(game.exploded)) if game.exploded is not None else None,
        forced_guesses=public.get("forced_guesses", 0),
        hints=game.hints,
        deaths=game.deaths,
        flags=game.flags(),
        elapsed=game.elapsed(now),
        version=game.version,
        moves=game.version,
        can_undo=game.options.undo and bool(game.history),
        options=game.options.as_dict(),
        board_id=public.get("board_id"),
        start=list(game.cell(public["start"])) if public.get("start") is not None and game.started_at is None else None,
        bot_moves=public.get("bot_moves", 0),
        aids=game.aids,
        **dict(zip(("bbbv", "bbbv_per_second", "clicks"), fixed_layout_figures(game) or (), strict=False)),
    ).model_dump(mode="json")
    for name in GameOut.model_fields.keys() - GAME_FIELDS.keys():
        shown[name] = part.model_dump(mode="json") if part is not None and name == face.api_field else None
    if part is not None and face.api_field is not None and face.api_field not in shown:
        shown[face.api_field] = part.model_dump(mode="json")
    return shown


ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    403: {"model": ErrorOut, "description": "a cross-site request from a browser"},
    404: {"model": ErrorOut, "description": "no such game for this player"},
    409: {
        "model": ErrorOut,
        "description": "the rules refuse the move, or another request changed the game at the same moment; "
        "nothing changed",
    },
    413: {"model": ErrorOut, "description": "the request body is too large"},
    422: {
        "model": ErrorOut,
        "description": "not a valid request: a body that is not strict JSON (NaN, Infinity, numbers out of range "
        'and lone surrogates are refused), a field of the wrong type (true is not a number, nor is 9.0 or "9"), '
        "or a move that makes no sense on this board",
    },
    500: {
        "model": ErrorOut,
        "description": "the stored game is damaged (other games are unaffected), or the server failed unexpectedly",
    },
    503: {"model": ErrorOut, "description": "the position is too complex to analyse within the time limit"},
}


# ----- a finished game's review (app.results.review) ------------------------------------------------------


class StepOut(BaseModel):
    step: int = Field(description="its place in the game's story, from 1")
    action: str = Field(description="the move: reveal, chord, flag, undo, or an action of the game's mode")
    x: int | None = None
    y: int | None = None
    mark: str | None = Field(None, description="the mark a flag move set, when it named one")
    seat: int | None = Field(None, description="who moved, in games of several seats")
    taken_back: bool = Field(description="undone later, or an undo itself: the replay may skip it")
    death: bool = Field(description="it opened a mine and lost the game (taken back or not)")
    grade: str = Field(description="first, proven, best, inaccuracy, mistake, noted (not a bet) or too_complex")
    chance: float | None = Field(
        None, description="its exact chance of a mine before it (a chord: of its riskiest cell), for a move not proven"
    )
    best: float | None = Field(
        None,
        description="the lowest chance of a mine on the board then (where a mine is a point: the "
        "highest), for a move not proven",
    )
    example: list[int] | None = Field(
        None,
        description="a mistake's proven cell [x, y]: safe (where a mine is a point: a proven mine), or the flag's cell",
    )
    proof: list[list[int]] = Field(default_factory=list, description="the revealed numbers [x, y] that prove it")
    uses_count: bool = Field(False, description="the proof needs the number of mines left too")


class SummaryOut(BaseModel):
    seat: int | None = Field(None, description="the seat it sums up; null for the whole game")
    moves: int = Field(description="moves that bet on something: proven, guesses, mistakes")
    proven: int
    proven_share: float | None
    guesses: int
    best_guesses: int
    inaccuracies: int
    mistakes: int
    too_complex: int
    accuracy: float | None = Field(description="the share of the moves proven or the best guess; null when none")


class LuckOut(BaseModel):
    survived: float = Field(description="the chance that every guess that stands survived")
    survived_one_in: float | None = Field(description="the same as 1 in N; null when it was no chance at all")
    with_best: float = Field(description="the chance with the best guess at each of those moments")
    with_best_one_in: float | None


class ReviewOut(BaseModel):
    id: str
    mode: str
    width: int
    height: int
    mines: int
    status: Literal["won", "lost"]
    best_guess_margin: float = Field(description="a guess this close to the best chance on the board is the best guess")
    luck: LuckOut | None = Field(
        description="null where the rules leave nothing to luck (a cell that can be safe is safe when opened), "
        "or a mine is a point"
    )
    deaths: int = Field(description="clicks on a mine, taken back with undo or not")
    summary: SummaryOut
    seats: list[SummaryOut] = Field(description="each seat's summary, in games of several seats")
    steps: list[StepOut]


class ShareOut(BaseModel):
    url: str = Field(description="the replay's link: whoever holds it sees the finished game's replay, nothing else")


def summary_out(review: Review, seat: int | None = None) -> SummaryOut:
    return SummaryOut(
        seat=seat,
        moves=len(review.judged(seat)),
        proven=review.count("proven", seat),
        proven_share=_float(review.proven_share(seat)),
        guesses=review.guesses(seat),
        best_guesses=review.count("best", seat),
        inaccuracies=review.count("inaccuracy", seat),
        mistakes=review.count("mistake", seat),
        too_complex=review.count("too_complex", seat),
        accuracy=_float(review.accuracy(seat)),
    )


def review_out(game_id: str, game: Game, review: Review) -> ReviewOut:
    rules = get_mode(game.mode)
    luck = review.luck
    steps = []
    for number, (step, graded) in enumerate(zip(review.steps, review.grades, strict=True), start=1):
        move = step.move
        steps.append(
            StepOut(
                step=number,
                action=move.action if move is not None else "unrecorded",
                x=move.x if move is not None else None,
                y=move.y if move is not None else None,
                mark=move.mark if move is not None else None,
                seat=move.seat if move is not None else None,
                taken_back=step.taken_back,
                death=step.death,
                grade=graded.kind,
                chance=_float(graded.chance),
                best=_float(graded.best),
                example=list(graded.example) if graded.example is not None else None,
                proof=[list(cell) for cell in graded.proof],
                uses_count=graded.uses_count,
            )
        )
    return ReviewOut(
        id=game_id,
        mode=game.mode,
        width=game.width,
        height=game.height,
        mines=game.mines,
        status=game.status,
        best_guess_margin=float(BEST_GUESS_MARGIN),
        luck=LuckOut(
            survived=float(luck.survived),
            survived_one_in=float(1 / luck.survived) if luck.survived else None,
            with_best=float(luck.with_best),
            with_best_one_in=float(1 / luck.with_best) if luck.with_best else None,
        )
        if luck is not None
        else None,
        deaths=review.deaths,
        summary=summary_out(review),
        seats=[summary_out(review, seat) for seat in range(rules.seat_count)] if rules.seat_count > 1 else [],
        steps=steps,
    )


def _float(value: Fraction | None) -> float | None:
    return None if value is None else float(value)


# ----- boards of the day (app.results.daily) -------------------------------------------------------------------


class DailyEntryOut(BaseModel):
    won: bool
    clean: bool = Field(description="won with no hint, Show me, overlay, assist, bot move or undo, and no death")
    aids: list[str] = Field(description="what helped: hint, undo, bot, analysis, or the name of a setting that helps")
    deaths: int
    seconds: float
    bbbv: int | None = Field(description="the board's 3BV (the fewest clicks that clear it): fixed layouts only")
    bbbv_per_second: float | None
    accuracy: float | None = Field(description="the game's accuracy, 0 to 1, once graded")
    finished_at: float

    @classmethod
    def of(cls, entry: Any) -> DailyEntryOut:
        return cls(**{name: entry[name] for name in cls.model_fields})


class LadderLineOut(BaseModel):
    place: int | None = Field(description="the place among the clean wins; null for a win with help or a loss")
    name: str = Field(description='the name the player chose, or "anonymous" and a tag that stays the same')
    named: bool
    own: bool = Field(description="the line of the player asking")
    replay: str | None = Field(
        description="the path of the game's replay: on today's ladder only once the player asking has finished "
        "their own game of the board (a replay shows the board)"
    )
    entry: DailyEntryOut

    @classmethod
    def of(cls, line: Any) -> LadderLineOut:
        return cls(
            place=line.place,
            name=line.name,
            named=line.named,
            own=line.own,
            replay=line.replay,
            entry=DailyEntryOut.of(line.entry),
        )


class DailyBoardOut(BaseModel):
    key: str = Field(description='the board\'s ladder: its date and mode, "2026-11-26/cruel"')
    date: str
    mode: str
    title: str
    width: int
    height: int
    mines: int
    game_id: str | None = Field(description="the player's game of this board still in play")
    entry: DailyEntryOut | None = Field(description="the player's entry on its ladder: their first finished game")
    play: str | None = Field(description="where to POST to play it (today's boards only)")
    ladder: str


class DailyOut(BaseModel):
    date: str = Field(description="today, UTC: the boards change at 00:00 UTC")
    boards: list[DailyBoardOut]
    name: str | None = Field(description="the display name the player chose; null while they have not")
    streak: int = Field(description="days won in a row, up to today or yesterday")
    best_streak: int


class LadderBoardOut(BaseModel):
    key: str
    mode: str
    title: str
    clean_wins: int
    assisted_wins: int
    other: int = Field(description="finished games that were not won")
    unreadable: int = Field(description="stored entries that did not read back: left out")
    lines: list[LadderLineOut] = Field(description="the clean wins by time, then the wins with help: the best 100")
    own: LadderLineOut | None = Field(description="the line of the player asking, wherever it stands")


class LadderOut(BaseModel):
    date: str
    boards: list[LadderBoardOut]


class NameIn(BaseModel):
    name: str = Field(
        description="1 to 24 characters: letters of any script, digits, spaces, '-' and '_'; trimmed",
        max_length=200,
    )


class NameOut(BaseModel):
    name: str


def daily_out(today: Any) -> DailyOut:
    """GET /api/daily's answer from DailyOperations.daily."""
    day = today.day
    boards = []
    for part in day.boards:
        board = part.board
        boards.append(
            DailyBoardOut(
                key=board.key,
                date=board.date.isoformat(),
                mode=board.mode,
                title=board.title,
                width=board.size[0],
                height=board.size[1],
                mines=board.size[2],
                game_id=part.game_id,
                entry=DailyEntryOut.of(part.entry) if part.entry is not None else None,
                play=f"/api/daily/{board.key}/games" if day.today else None,
                ladder=f"/api/daily/{board.date.isoformat()}/ladder",
            )
        )
    return DailyOut(
        date=day.date.isoformat(), boards=boards, name=today.name, streak=today.streak, best_streak=today.best_streak
    )


def ladder_out(ladders: Any) -> LadderOut:
    """GET /api/daily/{date}/ladder's answer from DailyOperations.ladders."""
    date, boards = ladders
    return LadderOut(
        date=date.isoformat(),
        boards=[
            LadderBoardOut(
                key=ladder.board.key,
                mode=ladder.board.mode,
                title=ladder.board.title,
                clean_wins=ladder.counts[0],
                assisted_wins=ladder.counts[1],
                other=ladder.counts[2],
                unreadable=ladder.unreadable,
                lines=[LadderLineOut.of(line) for line in ladder.lines],
                own=LadderLineOut.of(ladder.own) if ladder.own is not None else None,
            )
            for ladder in boards
        ],
    )
