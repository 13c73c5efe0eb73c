"""A game's request and answer shapes, as the registered modes and faces shape them: a new game, a move, a
change of settings, the game, the list of games, what the player could know."""

from __future__ import annotations

import dataclasses
from collections.abc import Hashable
from typing import TYPE_CHECKING, Any, Literal, TypedDict

from pydantic import BaseModel, Field, create_model, model_validator

from app.core.game import AIDS, MAX_BOARD_SIDE, Choice, Game
from app.core.seats import OPPONENTS
from app.modes import DEFAULT_MODE, MODES, get_mode
from app.results.records import accuracy_of, fixed_layout_figures
from app.store import Listing
from app.web.faces import face_of
from app.web.schemas.base import STRICT, _joined


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
    # The action is checked by the game's mode (one it does not take is a 422 naming those it does), not by
    # this model: a mode registered after it was built (the tests add some) takes its own actions too; the
    # schema lists those of the modes registered now. Any to mypy: pydantic's stubs take no dict of mixed fields.
    fields: dict[str, Any] = dict(
        action=(str, Field(description=_joined(notes), json_schema_extra={"enum": list(actions)})),
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


if TYPE_CHECKING:
    # mypy cannot read models made at run time: the routes' bodies as it checks them.
    NewGameIn = NewGameBase
    OptionsIn = OptionsBase

    class MoveIn(BaseModel):
        action: str
        x: int | None
        y: int | None
        mark: str | None

else:
    NewGameIn = new_game_model()
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


# What the bot's choice may be, in the order the modes first name them (a reveal, then any mode's own action).
BOT_ACTIONS = tuple(dict.fromkeys(action for mode in MODES.values() for action in mode.bot_actions))


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
    # Any action a mode's bot_actions name, as the mode chose it: the enum lists the modes registered when this
    # model was built, and a mode registered after it (the tests add some) answers its own too.
    action: str = Field(
        "reveal",
        description="help (Ask for help games): no cell is proven safe, "
        "so the bot asks for help before it opens the cell",
        json_schema_extra={"enum": list(BOT_ACTIONS)},
    )
    helped: bool = Field(False, description="the guess is opened under help granted: safe whatever its chance")


def game_out(game_id: str, game: Game, now: float) -> dict[str, Any]:
    """What the API shows of a game: what the player has seen, never the mode's hidden state. A dict (the
    routes answer it as it is): the part of a face registered after GameOut was built (a mode the tests
    add) is in it too."""
    rules = get_mode(game.mode)
    start = rules.start_cell(game)
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
        forced_guesses=rules.forced_guesses(game),
        hints=game.hints,
        deaths=game.deaths,
        flags=game.flags(),
        elapsed=game.elapsed(now),
        version=game.version,
        moves=game.version,
        can_undo=game.options.undo and bool(game.history),
        options=game.options.as_dict(),
        board_id=rules.shown_board_id(game),
        start=list(game.cell(start)) if start is not None and game.started_at is None else None,
        bot_moves=rules.bot_moves(game),
        aids=game.aids,
        **dict(zip(("bbbv", "bbbv_per_second", "clicks"), fixed_layout_figures(game) or (), strict=False)),
    ).model_dump(mode="json")
    for name in GameOut.model_fields.keys() - GAME_FIELDS.keys():
        shown[name] = part.model_dump(mode="json") if part is not None and name == face.api_field else None
    if part is not None and face.api_field is not None and face.api_field not in shown:
        shown[face.api_field] = part.model_dump(mode="json")
    return shown
