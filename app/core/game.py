"""What every game shares, whatever its mode: the board, marks, version, history and seats.

A game is plain data. The rules that change it live in the modes
(app.modes); this module holds the pieces every mode uses: the refusals, a
move and its outcome, the undo record a move writes, flags and undo
themselves. Nothing here knows about the web or the store.

What a player may see and what a mode keeps secret are apart: `cells`,
`marks`, `shown_mines` and `state` are what the player has seen; `hidden`
(a fixed layout, say) belongs to the mode and never reaches a view. A game
over shows its mines through `shown_mines`, which the mode sets at the end.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, ClassVar

from app.core import seats as seating
from app.core.board import Board
from app.core.errors import KaboomError
from app.core.languages import N_, Text, lazy_gettext, lazy_ngettext
from app.core.seats import Seat
from solver import Analyzer, Budget, Limits
from solver.position import COVERED, FLAG, MINE, Position

PRESETS = {
    "small": (8, 8, 10),  # the board of the Pestov-Shalyto program (and of Windows 3.1's Beginner)
    "beginner": (9, 9, 10),
    "intermediate": (16, 16, 40),
    "expert": (30, 16, 99),
}
PRESET_TITLES = {
    "small": N_("Small"),
    "beginner": N_("Beginner"),
    "intermediate": N_("Intermediate"),
    "expert": N_("Expert"),
}
# Boards a game may have; the solver reads bigger positions (solver.position.MAX_POSITION_SIDE).
MAX_BOARD_SIDE = 100
QUESTION = "?"
MARK_CYCLE = {"": FLAG, FLAG: QUESTION, QUESTION: ""}
MARKS = {"flag": FLAG, "question": QUESTION, "none": ""}
ACTIONS = ("reveal", "flag", "chord", "undo")
STATUSES = ("playing", "won", "lost")
# Every aid (DESIGN.md §1.8): whatever tells a player about covered cells beyond what their own play shows, or
# takes back what it cost them. The one list: each is kept in Game.aids once it helped, whatever is taken back
# after, and a game with any is no clean win on a ladder. Beside these, every setting that helps
# (Switches.helping: the overlays, the assists) is an aid by its own name. Each with what a ladder calls it.
LAYOUT_SEEN = "layout_seen"
AIDS = {
    "hint": N_("hints"),  # a hint or Show me (its proof)
    "undo": N_("undo"),  # an undo, and with it any death (a loss taken back)
    "bot": N_("the bot"),  # a move of the bot's (Play for me), or its advice (What would the bot do?)
    "analysis": N_("the analysis"),  # the API's analysis or probabilities
    LAYOUT_SEEN: N_("another game of this board"),  # before or after, finished or not
}


class Refused(KaboomError):
    """A move the rules do not allow: nothing changed."""


class Invalid(Refused):
    """A request that makes no sense on this board (bad coordinates, unknown action or setting)."""


class Busy(KaboomError):
    """A move the server could not finish within the request's time, as a busy server may not: nothing changed,
    and the same move may work when asked again (unlike a refusal, which the rules or the limits decide)."""


def setting(
    label: str,
    order: int,
    default: bool = False,
    at_deal: bool = False,
    fixed: bool = False,
    asked: str | None = None,
    helps: bool = False,
    own: bool = False,
) -> Any:
    """A game setting: a switch with a label for the page; `order` places it among the others. A setting
    `at_deal` shapes the board as it is dealt: changed once play has begun, it waits for the next game; a
    `fixed` one is a rule of the game, set when it is made and never changed. One the JSON API's new-game
    request takes is `asked`, with what the API says of it ("" for nothing). One that `helps` the player
    (an overlay, an assist) is off where players compete on one board (a race). One that is each player's
    `own` changes only what their page shows: on a board several play (a co-op room), each seat sets it
    for itself (Game.views)."""
    metadata = {
        "label": label,
        "order": order,
        "at_deal": at_deal,
        "fixed": fixed,
        "asked": asked,
        "helps": helps,
        "own": own,
    }
    return field(default=default, metadata=metadata)


@dataclass(frozen=True)
class Choice:
    """A choice among settings as the new-game API offers it ("first_click": "safe" for first_click_safe_only):
    each value, and the settings it stands for."""

    values: dict[str, dict[str, bool]]
    default: str
    description: str
    order: int  # where the API lists it among the settings (`setting`'s order): before one of the same order


class Switches:
    """A mode's settings as a dataclass of switches, each made with `setting`: named, labelled, checked.

    The settings every game is read for (by the views, the API and the undo) are off in a mode that does
    not offer them; Options, the one-player modes' settings, offers them all."""

    # Every subclass is a dataclass of `setting`s: this says so to mypy, for dataclasses.fields and asdict.
    __dataclass_fields__: ClassVar[dict[str, dataclasses.Field[Any]]]

    # Off unless a subclass makes them settings: class attributes here, as @dataclass takes fields only from
    # dataclass bases.
    debug_overlay: bool = False
    probabilities: bool = False
    safe_mode: bool = False
    countdown: bool = False
    question_marks: bool = False
    undo: bool = False

    @classmethod
    def names(cls) -> tuple[str, ...]:
        """Every setting's name, in the order the page shows them."""
        return tuple(f.name for f in sorted(dataclasses.fields(cls), key=lambda f: f.metadata["order"]))

    @classmethod
    def checked(cls, changes: dict[str, Any]) -> dict[str, bool]:
        """`changes` if every name is a setting of this kind and every value true or false; Invalid otherwise."""
        names = cls.names()
        unknown = set(changes) - set(names)
        if unknown:
            raise Invalid(
                lazy_gettext(
                    "unknown setting %(name)s: expected one of %(names)s",
                    name=repr(sorted(unknown)[0]),
                    names=", ".join(names),
                )
            )
        for name, value in changes.items():
            if not isinstance(value, bool):
                raise Invalid(lazy_gettext("setting %(name)s must be true or false", name=repr(name)))
        return changes

    @classmethod
    def label(cls, name: str) -> str:
        return next(f.metadata["label"] for f in dataclasses.fields(cls) if f.name == name)

    @classmethod
    def at_deal(cls, name: str) -> bool:
        """Whether the setting shapes the deal (the first click's), and so only a game not yet begun."""
        return next(f.metadata["at_deal"] for f in dataclasses.fields(cls) if f.name == name)

    @classmethod
    def fixed(cls, name: str) -> bool:
        """Whether the setting is a rule of the game, set when it is made."""
        return next((f.metadata["fixed"] for f in dataclasses.fields(cls) if f.name == name), False)

    @classmethod
    def helping(cls) -> frozenset[str]:
        """The settings that help the player (overlays, assists)."""
        return frozenset(f.name for f in dataclasses.fields(cls) if f.metadata.get("helps"))

    @classmethod
    def own(cls) -> frozenset[str]:
        """The settings that change only what the player's page shows: each player's own on a shared board."""
        return frozenset(f.name for f in dataclasses.fields(cls) if f.metadata.get("own"))

    @classmethod
    def asked(cls) -> dict[str, tuple[bool, str]]:
        """The settings the new-game API takes: each with its default and what the API says of it."""
        asked = {}
        for f in sorted(dataclasses.fields(cls), key=lambda f: f.metadata["order"]):
            if f.metadata["asked"] is not None:
                assert isinstance(f.default, bool)  # `setting` gives every switch its default
                asked[f.name] = (f.default, f.metadata["asked"])
        return asked

    def as_dict(self) -> dict[str, bool]:
        return dataclasses.asdict(self)


@dataclass
class Options(Switches):
    """The settings of the one-player modes; a mode's own settings extend these."""

    debug_overlay: bool = setting("Debug overlay", order=10, helps=True, own=True)
    probabilities: bool = setting("Mine probabilities", order=11, helps=True, own=True)
    safe_mode: bool = setting("Safe mode (double-click to reveal)", order=20, own=True)
    countdown: bool = setting("Countdown numbers", order=30, own=True)  # numbers show mines still missing
    question_marks: bool = setting("Question marks", order=35, default=True)  # in the flag cycle
    undo: bool = setting("Allow undo", order=40, default=True, asked="")


def board_size(width: int, height: int, mines: int | None = None, percent: float | None = None) -> tuple[int, int, int]:
    """Validate a custom board; mines as a count or a percentage of the cells."""
    if not (isinstance(width, int) and isinstance(height, int)):
        raise Invalid(lazy_gettext("width and height must be whole numbers"))
    if not (2 <= width <= MAX_BOARD_SIDE and 2 <= height <= MAX_BOARD_SIDE):
        raise Invalid(
            lazy_gettext(
                "width and height must be between 2 and %(most)s, not %(width)sx%(height)s",
                most=MAX_BOARD_SIDE,
                width=width,
                height=height,
            )
        )
    cells = width * height
    if (mines is None) == (percent is None):
        raise Invalid(lazy_gettext("give the mines either as a count or as a percentage"))
    if percent is not None:
        if not 0 < percent < 100:
            raise Invalid(
                lazy_gettext(
                    "the mine percentage must be above 0 and below 100, not %(percent)s", percent=format(percent, "g")
                )
            )
        mines = max(1, round(cells * percent / 100))
    assert mines is not None  # given as a count, or made from the percentage
    if not 1 <= mines <= cells - 1:
        raise Invalid(
            lazy_gettext(
                "a %(width)sx%(height)s board holds between 1 and %(most)s mines, not %(mines)s",
                width=width,
                height=height,
                most=cells - 1,
                mines=mines,
            )
        )
    return width, height, mines


@dataclass
class Move:
    action: str
    x: int | None = None
    y: int | None = None
    mark: str | None = None  # for "flag": set this mark ("flag", "question", "none") instead of cycling
    bot: bool = False  # the bot's choice (Play for me): modes with records mark the game as played with it
    # The seat that moves, in modes where players take turns: None moves for whoever's turn it is.
    seat: int | None = None

    def recorded(self) -> dict[str, Any]:
        """The move as its undo record keeps it (what a replay replays): what was asked, without the unset."""
        return {"action": self.action, **{name: value for name, value in self._given().items() if value is not None}}

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> Move:
        return cls(**record)

    def _given(self) -> dict[str, Any]:
        return {"x": self.x, "y": self.y, "mark": self.mark, "seat": self.seat, "bot": self.bot or None}


@dataclass
class Outcome:
    """What a move did, for the caller to show."""

    changed: set[int] = field(default_factory=set)  # cells whose symbol or mark changed
    # Cells an assist changed after the action, with how far from it (in steps of reasoning) each lies:
    # the page shows them as a ripple spreading from the action.
    ripple: dict[int, int] = field(default_factory=dict)
    # Words for the player (a Text: read in their language where it is shown).
    message: str | Text = ""
    forced_guess: bool = False
    # The analyzer for the new game, or None when the caller must build a
    # fresh one (after undo, or when none was handed in).
    analyzer: Analyzer | None = None


@dataclass
class Hint:
    kind: str  # safe, guess, outside, wrong_flag, start
    message: Text
    cell: tuple[int, int] | None = None
    proof: list[tuple[int, int]] = field(default_factory=list)
    uses_count: bool = False


@dataclass(frozen=True)
class BotChoice:
    """The cell the bot would open next (DESIGN.md §1.4), chosen from what the player sees."""

    cell: tuple[int, int]
    safe: bool  # proven safe, or a first click, which the rules make safe
    mine_probability: float | None  # 0 when safe; a guess's chance as the bot counted it, None when it could not
    first_click: bool = False
    # Or an action of the mode's own (Mode.bot_actions), which it takes before it guesses `cell`.
    action: str = "reveal"
    helped: bool = False  # the guess is opened under help granted, so safe whatever its chance


# What an undo record saves besides cells and marks: everything a move may change.
RECORDED = ("status", "exploded", "shown_mines", "state", "started_at", "finished_at", "last_cell")


@dataclass
class Game:
    width: int
    height: int
    mines: int
    mode: str
    options: Switches = field(default_factory=Options)  # the mode's own (Mode.options_class)
    # '.' covered, '0'-'8' revealed, '*' a mine shown without a loss (help found it); a finished
    # game's mines show through shown_mines.
    cells: list[str] = field(default_factory=list)
    marks: dict[int, str] = field(default_factory=dict)  # covered cell -> 'F' or '?'
    status: str = "playing"  # playing, won, lost
    exploded: int | None = None
    shown_mines: list[int] | None = None  # the mines a finished game shows
    state: dict[str, Any] = field(default_factory=dict)  # the mode's own state, all of it visible
    hidden: dict[str, Any] | None = None  # the mode's secret (a fixed layout): never shown before the end
    hints: int = 0
    deaths: int = 0  # losses undone (Tatham's "Deaths"): an undo takes the loss back, not the count
    started_at: float | None = None
    finished_at: float | None = None
    last_cell: int | None = None
    history: list[dict[str, Any]] = field(default_factory=list)  # what each action changed, for undo
    version: int = 0  # every change (a move, a setting, a hint asked) adds one
    seats: list[Seat] = field(default_factory=list)  # who plays each seat (app.core.seats); seat 0 made the game
    # What was taken back with undo since the last action, as steps forward in the order played (`undone_steps`):
    # the next action's undo record keeps them, so that a replay shows undone moves and deaths too.
    undone: list[dict[str, Any]] = field(default_factory=list)
    # A finished game's grades (app.results.review), worked out once; any action or undo drops them.
    review: dict[str, Any] | None = None
    # The key of a finished game's shared replay (app.core.seats.SHARE): None when not shared, or withdrawn.
    share: str | None = None
    # The room the game is played in (app.rooms): {"id", "kind", "invite"}; whoever holds the room's link
    # may watch the game, and the room's kind says what the game is to its players (their records).
    room: dict[str, str] | None = None
    # When the board opens (a race's start, after its countdown): no move before it, and its clock counts
    # from it, the same for every racer, rather than from the first click.
    opens_at: float | None = None
    # On a board several play (a co-op room), each seat's choice of the settings that are its `own`
    # (Switches.own: the overlays, how numbers show): one player's overlay is not another's.
    views: dict[int, dict[str, bool]] = field(default_factory=dict)
    # The board of the day the game plays (app.results.daily: its ladder's key, "2026-11-26/cruel"); None for others.
    daily: str | None = None
    # What helped the player so far, whatever was taken back since (AIDS): a ladder ranks the games without.
    aids: list[str] = field(default_factory=list)
    # Players compete on this board (a race's, a board of the day's): nothing that would let another game of it
    # be made (its id) is shown while this one is played.
    sealed: bool = False

    def aided(self, aid: str) -> None:
        """Note that `aid` (one of AIDS, or the name of a setting that helps) helped the player in this game."""
        if aid not in self.aids:
            self.aids = sorted([*self.aids, aid])

    @property
    def maker(self) -> str:
        """The player who made the game: it is theirs to delete, and its result is theirs."""
        maker = seating.occupant(self.seats[0]) if self.seats else None
        if maker is None:
            raise ValueError("a game is made by a player, who holds its first seat")
        return maker

    def mode_secret(self) -> dict[str, Any]:
        """`hidden`, in a game whose mode keeps a secret: the mode's deal made it with the game."""
        assert self.hidden is not None, f"a {self.mode} game without its secret"
        return self.hidden

    def credentials(self) -> list[str]:
        """What opens the game in a store: its players' ids, an invitation link's key, the computer's, the
        key of its shared replay, and its room's link."""
        return (
            seating.credentials(self.seats)
            + ([seating.replay_watcher(self.share)] if self.share else [])
            + ([seating.watcher(self.room["invite"])] if self.room else [])
        )

    @functools.cached_property
    def board(self) -> Board:
        # Cached: views ask it for every cell, and a game's size never changes.
        return Board(self.width, self.height)

    def copy(self) -> Game:
        """A copy that moves can change; history records are never changed once written."""
        return dataclasses.replace(
            self,
            options=copy.copy(self.options),
            cells=list(self.cells),
            marks=dict(self.marks),
            state=copy.deepcopy(self.state),
            hidden=copy.deepcopy(self.hidden),
            history=list(self.history),
            seats=list(self.seats),
            undone=list(self.undone),
            views={seat: dict(chosen) for seat, chosen in self.views.items()},
        )

    def seen_by(self, player: str) -> Game:
        """The game with its settings as `player`'s page shows them: their seat's own choices (Game.views)
        over the game's. The service hands this out and never stores it."""
        seats = seating.held_by(self.seats, player)
        chosen = self.views.get(min(seats)) if seats else None
        if not chosen:
            return self
        seen = self.copy()
        seen.options = dataclasses.replace(self.options, **chosen)
        return seen

    # ----- geometry ---------------------------------------------------

    def index(self, x: Any, y: Any) -> int:
        if not (isinstance(x, int) and isinstance(y, int)) or isinstance(x, bool) or isinstance(y, bool):
            raise Invalid(lazy_gettext("x and y must be whole numbers"))
        if not self.board.contains(x, y):
            raise Invalid(
                lazy_gettext(
                    "(%(x)s, %(y)s) is off the %(width)sx%(height)s board (x and y count from 0)",
                    x=x,
                    y=y,
                    width=self.width,
                    height=self.height,
                )
            )
        return self.board.index(x, y)

    def cell(self, index: int) -> tuple[int, int]:
        return self.board.cell(index)

    def neighbours(self, index: int) -> tuple[int, ...]:
        return self.board.neighbours(index)

    # ----- what the player sees ----------------------------------------

    def position(self) -> Position:
        """What the player has seen, as the solver reads it (flags are notes, not knowledge)."""
        return Position(self.width, self.height, self.mines, tuple(self.board.rows(self.cells)))

    def board_rows(self) -> list[str]:
        """The position alphabet with flags; after the end '*' marks the mines the game shows."""
        # By the marks and mines alone, not cell by cell: a 100x100 answer spent a millisecond here.
        symbols = list(self.cells)
        for index, mark in self.marks.items():
            if mark == FLAG and symbols[index] == COVERED:
                symbols[index] = FLAG
        for index in self.shown_mines or ():
            symbols[index] = MINE
        return self.board.rows(symbols)

    @property
    def covered(self) -> int:
        return self.cells.count(COVERED)

    def flags(self) -> int:
        """Flags placed, and mines shown without a loss (help found them): what the mine counter subtracts."""
        return sum(1 for mark in self.marks.values() if mark == FLAG) + self.cells.count(MINE)

    @property
    def safe_left(self) -> int:
        """Safe cells still covered: none left is a win. A mine shown in play (help found it) is not covered."""
        return self.covered - (self.mines - self.cells.count(MINE))

    def elapsed(self, now: float) -> float:
        if self.opens_at is not None:
            return max(0.0, (self.finished_at or now) - self.opens_at)
        if self.started_at is None:
            return 0.0
        return (self.finished_at or now) - self.started_at

    def finish(self, status: str, now: float, shown_mines) -> None:
        self.status = status
        self.shown_mines = sorted(shown_mines)
        self.finished_at = now

    # ----- storage ----------------------------------------------------

    SCALARS = (
        "width",
        "height",
        "mines",
        "mode",
        "status",
        "exploded",
        "shown_mines",
        "state",
        "hidden",
        "hints",
        "deaths",
        "started_at",
        "finished_at",
        "last_cell",
        "version",
        "seats",
    )

    def to_json(self) -> dict[str, Any]:
        """The state without its history: stores keep history records apart, each written once.

        app.core.stored reads it back, checking every field."""
        data = {name: getattr(self, name) for name in self.SCALARS}
        data["options"] = self.options.as_dict()
        data["cells"] = "".join(self.cells)
        data["marks"] = {str(index): mark for index, mark in self.marks.items()}
        data["seats"] = seating.to_json(self.seats)
        # Written only when there is something: most games never undo, finish, share or sit in a room.
        for name in ("undone", "review", "share", "room", "opens_at", "daily", "aids", "sealed"):
            if getattr(self, name):
                data[name] = getattr(self, name)
        if self.views:
            data["views"] = {str(seat): chosen for seat, chosen in self.views.items()}
        return data


@dataclass(frozen=True)
class LossReview:
    """What the player could have known at the moment of the click that lost."""

    clicked: tuple[int, int]
    outside: bool  # the clicked cell touched no number
    mine_probability: Fraction | None  # of the clicked cell then; None when it could not be counted in time
    safe: list[tuple[int, int]]  # every cell that could be proven safe then
    example: tuple[int, int] | None  # one of them (next to the numbers if one is), with its proof
    proof: list[tuple[int, int]]
    uses_count: bool
    statuses: dict  # every covered cell's status then (cell -> Status), for the debug overlay after the loss
    by_bot: bool = False  # the losing click was the bot's (Play for me), not the player's


# ----- what every mode's moves share --------------------------------------------


@dataclass
class Turn:
    """One move being applied: the game copy, the solver, the deal's randomness and the undo record."""

    game: Game
    analyzer: Analyzer
    rng: Any  # random.Random
    limits: Limits
    now: float
    move: Move | None = None  # kept in the undo record, for the game's replay
    undo: dict[str, Any] = field(default_factory=lambda: {"cells": {}, "marks": {}})
    outcome: Outcome = field(default_factory=Outcome)
    # While an assist opens cell after cell, the win is checked once after them: a check counts every cell.
    win_deferred: bool = False

    def __post_init__(self) -> None:
        self.undo.update({name: copy.deepcopy(getattr(self.game, name)) for name in RECORDED})
        # The version the record takes the game back to: a live page one version behind learns that this
        # action is all that changed since it was drawn.
        self.undo["version"] = self.game.version
        if self.move is not None:
            self.undo["move"] = self.move.recorded()
        if self.game.undone:
            self.undo["undone"] = self.game.undone
            self.game.undone = []
        self.game.review = None

    @property
    def budget(self) -> Budget:
        """The counting budget of one deal: deterministic steps, and the request's deadline."""
        return Budget(deadline=self.limits.deadline)

    def set_cell(self, index: int, symbol: str) -> None:
        self.undo["cells"].setdefault(str(index), self.game.cells[index])
        self.game.cells[index] = symbol
        self.outcome.changed.add(index)

    def set_mark(self, index: int, mark: str) -> None:
        self.undo["marks"].setdefault(str(index), self.game.marks.get(index, ""))
        if mark:
            self.game.marks[index] = mark
        else:
            self.game.marks.pop(index, None)
        self.outcome.changed.add(index)

    def open_cells(self, opened: dict[int, int]) -> None:
        """Show revealed numbers (a flood's worth), clearing any question marks on them, and tell the solver."""
        game = self.game
        for index, number in opened.items():
            self.set_cell(index, str(number))
            if index in game.marks:
                self.set_mark(index, "")
        self.analyzer.reveal({game.cell(index): str(number) for index, number in opened.items()})

    def show_mine(self, index: int) -> None:
        """Show a mine without a loss (help found it): the player and the solver know it from now on."""
        self.set_cell(index, MINE)
        if index in self.game.marks:
            self.set_mark(index, "")
        self.analyzer.reveal({self.game.cell(index): MINE})


def flag(turn: Turn, index: int, mark: str | None) -> None:
    """Cycle flag, question mark, nothing on a covered cell, or set the mark named."""
    game = turn.game
    if game.cells[index] != COVERED:
        x, y = game.cell(index)
        raise Refused(
            lazy_gettext("column %(x)s, row %(y)s is revealed: only covered cells take flags", x=x + 1, y=y + 1)
        )
    if mark is None:
        new_mark = MARK_CYCLE[game.marks.get(index, "")]
        if new_mark == QUESTION and not game.options.question_marks:
            new_mark = ""
    elif mark in MARKS:
        new_mark = MARKS[mark]
        if new_mark == QUESTION and not game.options.question_marks:
            raise Refused(lazy_gettext("question marks are turned off for this game"))
    else:
        raise Invalid(lazy_gettext("unknown mark %(mark)s: expected flag, question or none", mark=repr(mark)))
    turn.set_mark(index, new_mark)


def check_revealable(game: Game, index: int) -> None:
    x, y = game.cell(index)
    if game.cells[index] != COVERED:
        raise Refused(lazy_gettext("column %(x)s, row %(y)s is already revealed", x=x + 1, y=y + 1))
    if game.marks.get(index) == FLAG:
        raise Refused(
            lazy_gettext("column %(x)s, row %(y)s is flagged: remove the flag to reveal it", x=x + 1, y=y + 1)
        )


def chord_targets(game: Game, index: int) -> list[int]:
    """The cells a chord on `index` opens: a number whose flags are all placed opens its other covered neighbours."""
    symbol = game.cells[index]
    x, y = game.cell(index)
    if symbol == COVERED:
        raise Refused(
            lazy_gettext("column %(x)s, row %(y)s is covered: chording works on a revealed number", x=x + 1, y=y + 1)
        )
    if symbol == MINE:
        raise Refused(
            lazy_gettext("column %(x)s, row %(y)s is a mine: chording works on a revealed number", x=x + 1, y=y + 1)
        )
    flags = game.board.flags_around(index, game.cells, game.marks)
    if flags != int(symbol):
        raise Refused(
            lazy_ngettext(
                "the %(number)s at column %(x)s, row %(y)s has %(num)s flag around it",
                "the %(number)s at column %(x)s, row %(y)s has %(num)s flags around it",
                flags,
                number=symbol,
                x=x + 1,
                y=y + 1,
            )
        )
    targets = game.board.covered_around(index, game.cells, game.marks)
    if not targets:
        raise Refused(
            lazy_gettext(
                "nothing left to open around the %(number)s at column %(x)s, row %(y)s", number=symbol, x=x + 1, y=y + 1
            )
        )
    return targets


def undo(game: Game) -> tuple[Game, Outcome]:
    """Step back one action (a chord is one), also after a loss, which counts as a death."""
    if not game.options.undo:
        raise Refused(lazy_gettext("undo is turned off for this game"))
    if not game.history:
        raise Refused(lazy_gettext("nothing to undo"))
    if game.status == "won":
        raise Refused(lazy_gettext("the game is won: a win is not undone"))
    new, outcome = rewound(game)
    new.undone = undone_steps(game)
    new.review = None
    new.aided("undo")
    if game.status == "lost":
        new.deaths += 1
        outcome.message = lazy_gettext("Undone: that was death number %(deaths)s.", deaths=new.deaths)
        # Nothing of a game in play is shown through its replay's link: a loss taken back withdraws it.
        new.share = None
    return new, outcome


def undone_steps(game: Game) -> list[dict[str, Any]]:
    """The steps from the position before the game's last action back to it, once undo takes that action
    back: what was undone before the action, the action, what was undone after it, and the undo. Each step
    is shaped as an undo record holding the values it leads to (`restored` plays it)."""
    record = game.history[-1]
    back = {"move": {"action": "undo"}, **{name: record[name] for name in ("cells", "marks", *RECORDED)}}
    return [*record.get("undone", ()), step_to(game, record), *game.undone, back]


def step_to(game: Game, record: dict[str, Any]) -> dict[str, Any]:
    """The step forward an undo record takes back, from the game as that record's action left it: its move,
    and the values of what the record restores, as the game has them."""
    step = {"move": record["move"]} if "move" in record else {}
    return step | {
        "cells": {key: game.cells[int(key)] for key in record["cells"]},
        "marks": {key: game.marks.get(int(key), "") for key in record["marks"]},
        **{name: copy.deepcopy(getattr(game, name)) for name in RECORDED},
    }


def restored(game: Game, record: dict[str, Any]) -> tuple[Game, set[int]]:
    """A copy of the game with the cells, marks and recorded fields an undo record (or a step) holds, and
    the cells it changed."""
    new = game.copy()
    return new, put_back(new, record)


def put_back(game: Game, record: dict[str, Any]) -> set[int]:
    """`restored` in place: the game takes the values the record holds; the cells it changed."""
    changed: set[int] = set()
    for key, symbol in record["cells"].items():
        game.cells[int(key)] = symbol
        changed.add(int(key))
    for key, mark in record["marks"].items():
        if mark:
            game.marks[int(key)] = mark
        else:
            game.marks.pop(int(key), None)
        changed.add(int(key))
    for name in RECORDED:
        setattr(game, name, copy.deepcopy(record[name]))
    return changed


def rewound(game: Game) -> tuple[Game, Outcome]:
    """The game as it stood before its last action (which must exist), and the cells that change back."""
    new, changed = restored(game, game.history[-1])
    new.history.pop()
    outcome = Outcome(changed=changed, message="Undone.")
    # The mines shown at the end were shown everywhere; they go with the undo too.
    outcome.changed.update(game.shown_mines or ())
    new.version += 1
    return new, outcome


def set_options(game: Game, changes: dict[str, bool], seat: int | None = None) -> Game:
    """Change a game's settings; not an action, so undo does not step over it. On a board several play,
    `seat`'s own settings (Switches.own) change for that seat alone."""
    new = game.copy()
    own = type(game.options).own() if seat is not None and len(game.seats) > 1 else frozenset()
    for name, value in type(game.options).checked(changes).items():
        if name == "undo" and value and not game.options.undo and game.status != "playing":
            # Undo turned on after the end would take back a result the game was played for without it.
            if game.status == "won":
                raise Refused(lazy_gettext("the game is won: undo cannot be turned on after the end"))
            raise Refused(lazy_gettext("the game is lost: undo cannot be turned on after the end"))
        if name in own:
            assert seat is not None  # `own` is empty without a seat
            new.views.setdefault(seat, {})[name] = value
        else:
            setattr(new.options, name, value)
        if value and name in type(game.options).helping():
            new.aided(name)
    new.version += 1
    return new


def count_hint(game: Game) -> Game:
    """Asking for a hint is recorded (the status line shows how many), but is not an action to undo."""
    new = game.copy()
    new.hints += 1
    new.aided("hint")
    new.version += 1
    return new
