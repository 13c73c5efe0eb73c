"""Classic Minesweeper (DESIGN.md §1.2): one layout, dealt at the first click, kept secret until the end.

The layout comes from the game's secret seed and the first click (Tatham's
deferred generation), so undoing the first click and clicking the same cell
deals the same board. Everything the player is told — hints, *Show me*, the
overlay, the review of a loss — comes from what they have seen, never from the
layout (Mode.proven_hint and the service's analyzer read the visible position).
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import random
import re
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, NotRequired

from pydantic import StrictBool, StrictStr, StringConstraints
from typing_extensions import TypedDict

from app.core.game import (
    BotChoice,
    Busy,
    Choice,
    Game,
    Hint,
    Invalid,
    Move,
    Options,
    Outcome,
    Refused,
    Switches,
    Turn,
    board_size,
    setting,
)
from app.core.languages import N_, Text, gettext, lazy_gettext, lazy_ngettext, ngettext
from app.core.stored import Cell, Count, Layout, schema
from app.modes.base import FIRST_CLICK, Mode, options_of
from solver import Analyzer, Interrupted, Limits, OutOfTime, OutOfWork, Status
from solver.generate import PERTURBATIONS, NoGuessImpossible, first_click_layout, no_guess_layout
from solver.local import deduce
from solver.position import COVERED, FLAG
from solver.strategy import exact

log = logging.getLogger("kaboom.solver")

# A no-guess search past the request's work allowance would stop at the same point however often it is
# asked (the allowance counts work, not time); past the deadline, it was the server that was too busy.
NO_GUESS_OUT_OF_WORK = N_(
    "No no-guess board of this size and density could be made within the server's limit: "
    "try fewer mines, a smaller board, or turn off No guessing."
)
NO_GUESS_OUT_OF_TIME = N_(
    "The server is too busy to make a no-guess board of this size in time, and nothing changed: "
    "try again in a moment, or turn off No guessing."
)


@dataclass
class ClassicOptions(Options):
    first_click_safe_only: bool = setting(
        "First click safe only (no opening)", order=1, at_deal=True, asked='the older name of "first_click": "safe"'
    )
    no_guess: bool = setting(
        "No guessing (boards solvable by deduction)",
        order=2,
        at_deal=True,
        asked="classic and help modes: a board that can be cleared by deduction alone",
    )
    # Hoff's levels of automatic help; with both on, the stronger one does all.
    assist_local: bool = setting("Assist: resolve local rules", order=3, helps=True)
    assist_all: bool = setting("Assist: resolve everything", order=4, helps=True)


@schema
class ClassicSecret(TypedDict):
    # 128 bits the layout is derived from, with the first click; never shown. It is the server's keyed
    # hash of the board seed, so a board id (which shows the board seed) tells nothing of the layout.
    layout_seed: Annotated[StrictStr, StringConstraints(pattern=r"^[0-9a-f]{32}$")]
    mines: Layout | None  # the layout, once the first click has dealt it


# The actions a player clicks for: what "clicks used" counts (undo and help are buttons, not clicks on the board).
CLICKS = ("reveal", "chord", "flag")
BoardSeed = Annotated[StrictStr, StringConstraints(pattern=r"^[0-9a-f]{16}$")]


@schema
class ClassicState(TypedDict):
    # Absent from games stored before board ids: they get none.
    board_seed: NotRequired[BoardSeed]
    board_id: NotRequired[StrictStr | None]  # once the first click has dealt the layout
    start: NotRequired[Cell | None]  # a board played from its id: the cell its first click was on
    clicks: NotRequired[Count]  # reveals, chords and flags: what a won game's record shows beside its 3BV
    bot_moves: NotRequired[Count]  # moves the bot played (Play for me): such a game is not the player's record
    # Another game of this board ended before this one started or ended (the service sets it): the player
    # had seen its layout, so this game is not in their records either.
    layout_seen: NotRequired[StrictBool]


BOARD_ID = re.compile(r"^(\d{1,3})x(\d{1,3})-(\d{1,5})-([os])(n?)-(\d{1,3})\.(\d{1,3})-([0-9a-f]{16})$")


@dataclass(frozen=True)
class BoardId:
    """A fixed layout's short name, as Tatham's game ids: size, mines, what the first click promised,
    no guessing, the first click (1-based in the text) and a public seed. The layout is the server's
    keyed hash of it, so the same id deals the same board here, and reading it tells nothing."""

    width: int
    height: int
    mines: int
    safe_only: bool
    no_guess: bool
    first: tuple[int, int]
    seed: str

    def __str__(self) -> str:
        x, y = self.first
        flags = ("s" if self.safe_only else "o") + ("n" if self.no_guess else "")
        return f"{self.width}x{self.height}-{self.mines}-{flags}-{x + 1}.{y + 1}-{self.seed}"

    @classmethod
    def parse(cls, text: str) -> BoardId:
        match = BOARD_ID.match(text.strip())
        if match is None:
            raise Invalid(
                lazy_gettext(
                    "%(text)s is not a board id: they look like 30x16-99-o-4.4-0123456789abcdef", text=repr(text[:80])
                )
            )
        width, height, mines, kind, no_guess, x, y, seed = match.groups()
        width, height, mines = board_size(int(width), int(height), int(mines))
        x, y = int(x) - 1, int(y) - 1
        if not (0 <= x < width and 0 <= y < height):
            raise Invalid(
                lazy_gettext(
                    "board id %(text)s: its first click at column %(x)s, row %(y)s is off the "
                    "%(width)sx%(height)s board",
                    text=repr(text),
                    x=x + 1,
                    y=y + 1,
                    width=width,
                    height=height,
                )
            )
        return cls(width, height, mines, kind == "s", no_guess == "n", (x, y), seed)


class Classic(Mode):
    name = "classic"
    title = N_("Classic")
    summary = N_("The Minesweeper you know: one layout, dealt at your first click. No-guess boards in its settings.")
    options_class = ClassicOptions
    choices = {
        "first_click": FIRST_CLICK,
        "assist": Choice(
            {"none": {}, "local": {"assist_local": True}, "all": {"assist_all": True}},
            "none",
            "classic and help modes: after each action, resolve local constraints (two rules to a fixpoint) "
            "or everything the solver proves",
            order=3,
        ),
    }
    hidden_schema = ClassicSecret
    state_schema: ClassVar[type] = ClassicState  # Help's extends it

    def new_state(self) -> dict[str, Any]:
        return {"board_seed": "", "board_id": None, "start": None, "clicks": 0, "bot_moves": 0}

    def deal(self, game: Game, rng: random.Random, secret: bytes = b"") -> None:
        # Only the seed: the layout waits for the first click, which it must spare.
        self.seed(game, f"{rng.getrandbits(64):016x}", secret)

    @staticmethod
    def seed(game: Game, board_seed: str, secret: bytes) -> None:
        game.state["board_seed"] = board_seed
        layout_seed = hmac.new(secret, f"kaboom board|{board_seed}".encode(), hashlib.sha256).hexdigest()[:32]
        game.hidden = {"layout_seed": layout_seed, "mines": None}

    board_ids = True
    daily: ClassVar[dict[str, bool] | None] = {"no_guess": True}
    daily_title: ClassVar[str] = N_("No-guess Expert")
    # A race on a board that needs no guess: nobody wins it by luck.
    even_settings: ClassVar[dict[str, bool]] = {"no_guess": True}

    def shared_board(
        self, width: int, height: int, mines: int, options: Switches, *, rng: random.Random, secret: bytes = b""
    ) -> Game:
        """A board from an id: its layout is dealt for the id's first click wherever a player starts, so
        every copy has the same layout (a layout dealt at each copy's own first click would differ)."""
        width, height, mines = board_size(width, height, mines)
        classic = options_of(self.new_game(width, height, mines, options, rng=rng, secret=secret), ClassicOptions)
        first = (rng.randrange(width), rng.randrange(height))
        board = BoardId(
            width, height, mines, classic.first_click_safe_only, classic.no_guess, first, f"{rng.getrandbits(64):016x}"
        )
        return self.from_board(str(board), classic, secret)

    def from_board(self, board_id: str, options: Switches, secret: bytes) -> Game:
        """A new game of the board an id names: its layout, its first click marked for the player."""
        board = BoardId.parse(board_id)
        if not isinstance(options, ClassicOptions):
            raise Invalid(
                lazy_gettext(
                    "%(title)s games take %(options)s",
                    title=lazy_gettext(self.title),
                    options=self.options_class.__name__,
                )
            )
        options.first_click_safe_only, options.no_guess = board.safe_only, board.no_guess
        game = self.new_game(board.width, board.height, board.mines, options, rng=random.Random(0), secret=secret)
        self.seed(game, board.seed, secret)
        game.state["start"] = game.index(*board.first)
        game.state["board_id"] = str(board)
        return game

    def from_layout(
        self, width: int, height: int, mines: frozenset[int], first: tuple[int, int], options: Options | None = None
    ) -> Game:
        """A game of a layout given whole, its first click marked (the bot plays layouts from a file)."""
        game = self.new_game(width, height, len(mines), options, rng=random.Random(0))
        game.mode_secret()["mines"] = sorted(mines)
        game.state["start"] = game.index(*first)
        return game

    def apply(self, game: Game, move: Move, **turn: Any) -> tuple[Game, Outcome]:
        new, outcome = super().apply(game, move, **turn)
        if move.action in CLICKS and "clicks" in new.state:
            new.state["clicks"] += 1
        played = game.state.get("bot_moves", 0) + move.bot
        if played:
            # Set from the game before the move, not from what an undo restores: a game the bot played
            # in stays one, as an undone loss stays a death.
            new.state["bot_moves"] = played
        return new, outcome

    def reveal_cell(self, turn: Turn, index: int) -> None:
        game = turn.game
        if game.started_at is None:
            # The first click (again, after undoing it: the same click deals the same layout). A board
            # played from its id is dealt for the id's first click, which opens it; a first click anywhere
            # else could be a mine, so it is refused, and every game of the board (a race's) starts alike.
            start = game.state.get("start")
            if start is not None and index != start:
                x, y = game.cell(start)
                raise Refused(
                    lazy_gettext(
                        "this board opens at its outlined cell, column %(x)s, row %(y)s: start there "
                        "(a first click anywhere else could be a mine)",
                        x=x + 1,
                        y=y + 1,
                    )
                )
            if start is None or game.mode_secret()["mines"] is None:  # a layout given whole (the bot's) stands
                if start is None and game.state.get("board_seed"):
                    game.state["board_id"] = str(self._board(game, index))
                board = self._board(game, index if start is None else start)
                game.mode_secret()["mines"] = sorted(
                    self.layout(game, game.index(*board.first), board.safe_only, board.no_guess, turn.limits)
                )
            game.started_at = turn.now
        mines = set(game.mode_secret()["mines"])
        if index in mines:
            game.exploded = index
            game.finish("lost", turn.now, mines)
            return
        self.open_safe_cell(turn, index, mines)

    @staticmethod
    def _board(game: Game, first: int) -> BoardId:
        """The id of the board a first click at `first` deals: the id's own for a board played from one."""
        if game.state.get("start") is not None:
            return BoardId.parse(game.state["board_id"])
        options = options_of(game, ClassicOptions)
        return BoardId(
            game.width,
            game.height,
            game.mines,
            options.first_click_safe_only,
            options.no_guess,
            game.cell(first),
            game.state.get("board_seed") or "0" * 16,
        )

    def layout(
        self, game: Game, first: int, safe_only: bool, no_guess: bool, limits: Limits | None = None
    ) -> frozenset[int]:
        """The board a first click at `first` deals: a function of the game's seed, its size, what the
        first click promises, no guessing and the click. Refused when no board without guesses is found
        for the density or within the request's work allowance (nothing changes: the player may turn the
        setting off), Busy past its deadline."""
        opening = not safe_only
        key = (
            f"{game.mode_secret()['layout_seed']}|{game.width}x{game.height}/{game.mines}|"
            f"{'opening' if opening else 'safe'}"
            f"{'|no-guess' if no_guess else ''}|{first}"
        )
        rng = random.Random(hashlib.sha256(key.encode()).digest())
        if not no_guess:
            return first_click_layout(game.width, game.height, game.mines, first, rng, opening=opening)
        allowance = (limits or Limits()).generating()
        try:
            return no_guess_layout(
                game.width, game.height, game.mines, first, rng, opening=opening, allowance=allowance
            )
        except NoGuessImpossible:
            # The search's own words (solver.generate), as a whole sentence with what the player may do.
            raise Refused(
                lazy_ngettext(
                    "No %(width)sx%(height)s board with %(num)s mine that can be solved without guessing was found "
                    "within %(changes)s changes: try fewer mines, or turn off No guessing.",
                    "No %(width)sx%(height)s board with %(num)s mines that can be solved without guessing was found "
                    "within %(changes)s changes: try fewer mines, or turn off No guessing.",
                    game.mines,
                    width=game.width,
                    height=game.height,
                    changes=PERTURBATIONS,
                )
            ) from None
        except OutOfWork:
            raise Refused(lazy_gettext(NO_GUESS_OUT_OF_WORK)) from None
        except OutOfTime:
            # Where the deadline fires depends on the machine's load, so it is logged, as a verdict it decides is.
            log.warning(
                "a no-guess %dx%d board with %d mines ran out of time after %d work units",
                game.width,
                game.height,
                game.mines,
                allowance.spent,
            )
            raise Busy(lazy_gettext(NO_GUESS_OUT_OF_TIME)) from None

    def no_guess_deal(self, game: Game) -> bool:
        """Whether a reveal now deals a no-guess board: the first click, or the first again after undoing it."""
        if game.started_at is not None:
            return False
        start = game.state.get("start")
        if start is not None and game.mode_secret()["mines"] is not None:
            return False  # a layout given whole (the bot's) is not dealt
        if start is None:
            return options_of(game, ClassicOptions).no_guess
        return BoardId.parse(game.state["board_id"]).no_guess

    def after_action(self, turn: Turn) -> None:
        """The assists: after each action, what the chosen level proves is done for the player."""
        options = options_of(turn.game, ClassicOptions)
        if options.assist_all:
            self._resolve_everything(turn)
        elif options.assist_local:
            self._resolve_locally(turn)

    def _resolve_locally(self, turn: Turn) -> None:
        """The two local rules to a fixpoint (solver.local): flag what they prove a mine, open what they
        prove safe, and again from the numbers that opened, until nothing follows."""
        game = turn.game
        known: set[int] = set()
        start: set[int] | None = None  # every number at first: a flag taken off since is proven again
        offset = 0
        while game.status == "playing":
            found = deduce(game.width, game.height, game.cells, known, start)
            if not found:
                return
            known.update(found.mines)
            for index in found.mines:
                if game.marks.get(index) != FLAG:
                    turn.set_mark(index, FLAG)
                    turn.outcome.ripple.setdefault(index, offset + found.wave[index])
            opened_before = set(turn.outcome.changed)
            turn.win_deferred = True
            for index in found.safe:
                # A cell the player flagged stays shut: their flag, their mistake to see.
                if game.cells[index] == COVERED and game.marks.get(index) != FLAG and game.status == "playing":
                    self.reveal_cell(turn, index)
            turn.win_deferred = False
            if game.status == "playing":
                self.win_if_cleared(turn)
            last_wave = max(found.wave.values())
            new = turn.outcome.changed - opened_before
            for index in new:
                # A proven cell joins the ripple at its step; what its zeros flooded, at the round's end.
                turn.outcome.ripple.setdefault(index, offset + found.wave.get(index, last_wave))
            offset += last_wave + 1
            start = {n for index in new for n in (index, *game.neighbours(index))}

    def _resolve_everything(self, turn: Turn) -> None:
        """Every cell the exact solver proves, opened or flagged, until only genuine guesses remain."""
        game = turn.game
        step = 0
        while game.status == "playing":
            try:
                with turn.analyzer.limits(turn.limits.timed()):
                    statuses = turn.analyzer.classify()
            except Interrupted:
                # Too complex to finish within the request: what the action did stands, the rest waits.
                turn.outcome.message = lazy_gettext(
                    "The assist stopped: the position is too complex to resolve in time."
                )
                return
            safe = [game.index(*cell) for cell, status in statuses.items() if status is Status.SAFE]
            for cell, status in statuses.items():
                index = game.index(*cell)
                if status is Status.MINE and game.marks.get(index) != FLAG:
                    turn.set_mark(index, FLAG)
                    turn.outcome.ripple.setdefault(index, step)
            safe = [index for index in safe if game.marks.get(index) != FLAG]
            if not safe:
                return
            before = set(turn.outcome.changed)
            turn.win_deferred = True
            for index in safe:
                if game.cells[index] == COVERED and game.status == "playing":
                    self.reveal_cell(turn, index)
            turn.win_deferred = False
            if game.status == "playing":
                self.win_if_cleared(turn)
            for index in turn.outcome.changed - before:
                turn.outcome.ripple.setdefault(index, step)
            step += 1

    def hint(self, game: Game, analyzer: Analyzer) -> Hint:
        """A proven-safe cell with its proof, or, as the Pestov–Shalyto program answers, "I don't know"."""
        proven = self.proven_hint(game, analyzer)
        if proven is not None:
            return proven
        return Hint("guess", lazy_gettext("I don't know: no cell can be proven safe, so you must guess"))

    bot_plays = True

    def bot_choice(self, game: Game, analyzer: Analyzer, rng: random.Random) -> BotChoice:
        """The exact strategy's next cell (solver.strategy), which reads only the visible position: the first
        of the proven-safe cells the player has not flagged, else its one guess. The first click is the
        strategy's too, or a shared board's own, and safe by the rules."""
        if game.status != "playing":
            if game.status == "won":
                raise Refused(lazy_gettext("the game is won: the bot has nothing left to play"))
            raise Refused(lazy_gettext("the game is lost: the bot has nothing left to play"))
        start = game.state.get("start")
        if game.started_at is None and start is not None:
            return BotChoice(game.cell(start), safe=True, mine_probability=0.0, first_click=True)
        choice = exact(game.width, game.height, game.cells, analyzer, rng)
        if game.started_at is None:
            return BotChoice(choice.cells[0], safe=True, mine_probability=0.0, first_click=True)
        if choice.guess:
            return BotChoice(choice.cells[0], safe=False, mine_probability=choice.mine_probability)
        # Only when the player flagged every proven-safe cell is a flagged one named: the rules then refuse
        # to open it, and say why.
        cell = next((cell for cell in choice.cells if game.marks.get(game.index(*cell)) != FLAG), choice.cells[0])
        return BotChoice(cell, safe=True, mine_probability=0.0)

    def board_id(self, game: Game) -> str | None:
        return game.state.get("board_id")

    def layout_seen(self, game: Game) -> bool:
        return bool(game.state.get("layout_seen"))

    def see_layout(self, game: Game) -> None:
        game.state["layout_seen"] = True
        super().see_layout(game)

    def start_cell(self, game: Game) -> int | None:
        return game.state.get("start")

    def clicks(self, game: Game) -> int | None:
        return game.state.get("clicks")

    def bot_moves(self, game: Game) -> int:
        return game.state.get("bot_moves", 0)

    def public_state(self, game: Game) -> dict[str, Any]:
        # The board seed says nothing without the server's key; the id waits for the first click (shown_board_id).
        return {
            "board_id": self.shown_board_id(game),
            "start": game.state.get("start"),
            "bot_moves": game.state.get("bot_moves", 0),
        }

    def record_kind(self, game: Game) -> str:
        # From the board as it was dealt (its id), not the setting, which may have changed since.
        board_id = game.state.get("board_id")
        return N_("no guessing") if board_id and BoardId.parse(board_id).no_guess else ""

    def counters(self, game: Game) -> list[tuple[str, str, int, str]]:
        played = game.state.get("bot_moves", 0)
        return (
            [
                (
                    "bot-moves",
                    gettext("Bot moves"),
                    played,
                    gettext("Moves the bot played for you: this game does not count in your records"),
                )
            ]
            if played
            else []
        )

    def result_counts(self, game: Game) -> list[str]:
        played = game.state.get("bot_moves", 0)
        bot = ngettext("%(num)s bot move", "%(num)s bot moves", played) if played else ""
        return [bot, *super().result_counts(game)]

    def first_click_hint(self, game: Game) -> Text:
        start = game.state.get("start")
        if start is not None:
            x, y = game.cell(start)
            return lazy_gettext("Start at column %(x)s, row %(y)s: this board's first click", x=x + 1, y=y + 1)
        return super().first_click_hint(game)
