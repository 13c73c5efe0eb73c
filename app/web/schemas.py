"""The JSON API's request and response shapes."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from app.game import MAX_BOARD_SIDE, Game
from app.modes import MODES, get_mode
from app.records import Record, fixed_layout_figures
from app.store import Listing

# What every request body shares: no field the API does not know, and no conversions: pydantic
# would otherwise read true as 1, 9.0 as 9 and "9" as 9, so a slip in a script could play a move.
STRICT = ConfigDict(extra="forbid", strict=True)


class NewGameIn(BaseModel):
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
    mode: str = Field("cruel", json_schema_extra={"enum": list(MODES)})
    allow_outside: bool = Field(False, description="cruel mode: allow guessing anywhere")
    first_click: Literal["opening", "safe"] = Field(
        "opening", description="what the first click promises: an area opened around it, or the cell alone safe"
    )
    first_click_safe_only: bool = Field(False, description='the older name of "first_click": "safe"')
    no_guess: bool = Field(False, description="classic and help modes: a board that can be cleared by deduction alone")
    assist: Literal["none", "local", "all"] = Field(
        "none",
        description="classic and help modes: after each action, resolve local constraints (two rules to a fixpoint) "
        "or everything the solver proves",
    )
    undo: bool = True
    opponent: Literal["screen", "invite", "computer"] | None = Field(
        None,
        description="flags: Red is a friend on the same screen (the default), whoever opens the invitation link, or the computer",
    )
    level: Literal["easy", "normal", "hard"] | None = Field(
        None, description="flags against the computer: its level (normal by default)"
    )
    bomb: bool = Field(True, description="flags: once a game, the player who is behind may uncover a 5x5 area")
    uncover_all: bool = Field(False, description="flags: play until every mine is found (the KöMaL rule)")

    @model_validator(mode="after")
    def _a_size_or_a_board(self) -> NewGameIn:
        if self.board_id is None and None in (self.width, self.height, self.mines):
            raise ValueError("width, height and mines are required unless board_id is given")
        return self

    def settings(self) -> dict[str, bool]:
        """The settings the caller gave, by the modes' names; a mode without one of them refuses it."""
        given = self.model_dump(
            exclude_unset=True,
            exclude={"width", "height", "mines", "mode", "first_click", "assist", "board_id", "opponent", "level"},
        )
        if "first_click" in self.model_fields_set:
            given["first_click_safe_only"] = self.first_click == "safe"
        if self.assist != "none":
            given["assist_local" if self.assist == "local" else "assist_all"] = True
        return given


class MoveIn(BaseModel):
    model_config = STRICT

    action: Literal["reveal", "flag", "chord", "undo", "help", "bomb"] = Field(
        description='"help" in help games only: granted when no covered cell is provably safe, a loss otherwise; '
        '"bomb" in flags games only: the 5x5 area around x, y'
    )
    x: int | None = None
    y: int | None = None
    mark: Literal["flag", "question", "none"] | None = Field(
        None, description='for "flag": set this mark instead of cycling flag, ?, none'
    )


class OptionsIn(BaseModel):
    model_config = STRICT

    allow_outside: bool | None = None
    first_click_safe_only: bool | None = None
    no_guess: bool | None = None
    assist_local: bool | None = None
    assist_all: bool | None = None
    debug_overlay: bool | None = None
    probabilities: bool | None = None
    safe_mode: bool | None = None
    countdown: bool | None = None
    question_marks: bool | None = None
    undo: bool | None = None

    def changes(self) -> dict[str, bool]:
        return {name: value for name, value in self.model_dump().items() if value is not None}


class HelpOut(BaseModel):
    granted: int
    used: int
    pending: bool = Field(description="granted and not yet used: the next cell opened is safe")


class FlagsOut(BaseModel):
    turn: int = Field(description="the seat to move: 0 Blue, 1 Red")
    scores: list[int] = Field(description="mines found by Blue and by Red")
    found: list[list[list[int]]] = Field(description="the [x, y] of the mines each seat found, in order")
    bombs_used: list[bool] = Field(description="whether Blue and Red have dropped their bomb")
    last: list[list[int]] = Field(description="the [x, y] of the cells the last move uncovered")
    winner: int | None = Field(description="once the game is over: the winning seat; null is a draw")
    opponent: Literal["screen", "invite", "computer"]
    level: Literal["easy", "normal", "hard"] | None = Field(description="the computer's, in a game against it")


class GameOut(BaseModel):
    id: str
    mode: str
    width: int
    height: int
    mines: int
    status: Literal["playing", "won", "lost"]
    board: list[str] = Field(
        description="H rows: '.' covered, 'F' flagged, '0'-'8' revealed; after the end '*' marks the mines the game shows"
    )
    exploded: list[int] | None = Field(description="[x, y] of the mine that ended the game")
    forced_guesses: int = Field(
        description="cruel mode: guesses the rules made safe because no safe cell existed (0 in other modes)"
    )
    hints: int
    deaths: int = Field(description="losses taken back with undo")
    flags: int
    elapsed: float
    version: int = Field(description="the game's version: every move, setting changed or hint asked adds one")
    moves: int = Field(description="the old name of `version`, kept for scripts written before it")
    can_undo: bool
    options: dict[str, bool]
    help: HelpOut | None = Field(
        None, description="help games: how often help was granted and used, and whether it is waiting"
    )
    board_id: str | None = Field(
        None,
        description="fixed layouts, once the first click has dealt it: the id that plays this board again (POST /api/games)",
    )
    bbbv: int | None = Field(
        None, description="a won classic or help game: its 3BV, the fewest clicks that clear the board"
    )
    bbbv_per_second: float | None = Field(None, description="a won classic or help game: 3BV divided by its time")
    clicks: int | None = Field(None, description="a won classic or help game: the reveals, chords and flags it took")
    bot_moves: int = Field(
        0,
        description="classic and help games: moves the bot played (POST .../bot); such a game is left out of the records",
    )
    two_players: FlagsOut | None = Field(
        None,
        description="Flags games: whose turn, the scores, who found which mine; status 'won' means over (see winner)",
    )


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

    @classmethod
    def of(cls, listing: Listing, now: float) -> GameListOut:
        game = listing.game
        if game is None:
            return cls(id=listing.game_id, damaged=True, updated_at=listing.updated_at)
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
        description="proven safe from what the player sees, the first click (safe by the rules), or a guess under help granted; otherwise a guess"
    )
    mine_probability: float | None = Field(
        description="0 for a proven-safe cell; a guess's exact chance of a mine, null when it could not be counted in time"
    )
    action: Literal["reveal", "help"] = Field(
        "reveal",
        description="help (Ask for help games): no cell is proven safe, so the bot asks for help before it opens the cell",
    )
    helped: bool = Field(False, description="the guess is opened under help granted: safe whatever its chance")


class BestOut(BaseModel):
    seconds: float
    finished_at: float
    bbbv: int | None
    bbbv_per_second: float | None


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
            best_times=[
                BestOut(
                    seconds=best.seconds,
                    finished_at=best.finished_at,
                    bbbv=best.bbbv,
                    bbbv_per_second=best.bbbv_per_second,
                )
                for best in record.best
            ],
        )


class ErrorOut(BaseModel):
    # A sentence for refusals (a body that is not strict JSON too); a list of field errors when
    # the JSON is well formed but a field does not fit the request's shape.
    detail: str | list[dict[str, Any]]


def game_out(game_id: str, game: Game, now: float) -> GameOut:
    """What the API shows of a game: what the player has seen, never the mode's hidden state."""
    public = get_mode(game.mode).public_state(game)
    return GameOut(
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
        bot_moves=public.get("bot_moves", 0),
        **dict(zip(("bbbv", "bbbv_per_second", "clicks"), fixed_layout_figures(game) or ())),
        help=HelpOut(granted=public["help_granted"], used=public["help_used"], pending=public["help_pending"])
        if "help_granted" in public
        else None,
        two_players=FlagsOut(
            turn=public["turn"],
            scores=public["scores"],
            found=[[list(game.cell(index)) for index in cells] for cells in public["found"]],
            bombs_used=public["bombs"],
            last=[list(game.cell(index)) for index in public["last"]],
            winner=public["winner"],
            opponent=public["opponent"],
            level=public["level"],
        )
        if game.mode == "flags"
        else None,
    )


ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    403: {"model": ErrorOut, "description": "a cross-site request from a browser"},
    404: {"model": ErrorOut, "description": "no such game for this player"},
    409: {
        "model": ErrorOut,
        "description": "the rules refuse the move, or another request changed the game at the same moment; nothing changed",
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
