"""The interface every mode offers, with the single-player flow most modes share.

A mode is a table of functions the service drives (Tatham's game backend):
a new game from parameters (and what it deals in secret), a move applied to a
copy, a hint, its settings, and what of its own state a player may see
(`public_state`; a game's `hidden` part never reaches a view). `Mode.apply` is the usual flow — flag, reveal, chord,
undo on one board — and a mode changes only what differs: how one cell is
revealed (`reveal_cell`), what a hint says, its settings and state. A mode
that plays differently (two players taking turns) overrides `apply` itself.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

from app.game import (
    ACTIONS,
    PRESETS,
    BotChoice,
    Game,
    Hint,
    Invalid,
    LossReview,
    Move,
    Options,
    Outcome,
    Refused,
    Turn,
    board_size,
    check_revealable,
    chord_targets,
    flag,
    rewound,
    undo,
)
from app.stored import NoState
from solver import Allowance, Analyzer, Budget, Limits, Status
from solver.position import COVERED, FLAG, MINE


class Mode:
    name: ClassVar[str]
    title: ClassVar[str]  # for people
    summary: ClassVar[str] = ""  # the mode in one line, where a player chooses it
    # The sizes the new-game form offers, by name: (width, height, mines).
    presets: ClassVar[dict[str, tuple[int, int, int]]] = PRESETS
    # What the new-game form asks beyond the size, for `seat` (who plays); a one-player mode asks nothing.
    seat_fields: ClassVar[tuple[str, ...]] = ()
    options_class: ClassVar[type[Options]] = Options
    # The shape of `state` and of `hidden` as stored (TypedDicts with app.stored's @schema; checked on every
    # load); a mode without a secret has no hidden_schema, and its games store none.
    state_schema: ClassVar[type] = NoState
    hidden_schema: ClassVar[type | None] = None

    # ----- a new game -------------------------------------------------

    def new_state(self) -> dict[str, Any]:
        """The mode's own visible state of a new game."""
        return {}

    def new_game(
        self,
        width: int,
        height: int,
        mines: int,
        options: Options | None = None,
        seats: list[str] | None = None,
        *,
        rng: random.Random,
        secret: bytes = b"",
    ) -> Game:
        """A game nobody has played yet, its secret (if the mode keeps one) drawn from `rng`; `secret` is the
        server's key for what must not be worked out from what a player is shown (a board id's layout)."""
        width, height, mines = board_size(width, height, mines)
        options = options or self.options_class()
        if not isinstance(options, self.options_class):
            raise Invalid(f"{self.title} games take {self.options_class.__name__}")
        game = Game(
            width,
            height,
            mines,
            mode=self.name,
            options=options,
            cells=[COVERED] * (width * height),
            state=self.new_state(),
            seats=list(seats or []),
        )
        self.deal(game, rng, secret)
        return game

    def preset_title(self, name: str) -> str:
        return name.capitalize()

    def deal(self, game: Game, rng: random.Random, secret: bytes = b"") -> None:
        """Set up what a new game keeps secret (a fixed layout); modes that deal nothing ahead leave it."""

    def seat(self, game: Game, player: str, opponent: str | None = None, level: str | None = None) -> None:
        """Seat the players of a new game: its maker alone, unless the mode is played by two."""
        if opponent is not None or level is not None:
            raise Invalid(f"{self.title} games have one player: no opponent or level to choose")
        game.seats = [player]

    def seating(self, game: Game) -> dict[str, str]:
        """How a game's players were chosen, as the new-game form's `seat_fields` say it (for a game like it)."""
        return {}

    def seat_of(self, game: Game, player: str) -> int | None:
        """The seat a player moves for, in modes where players take turns; None: the game's one player."""
        return None

    def check_options(self, game: Game, changes: dict[str, bool]) -> None:
        """Refuse a change of settings the mode does not allow during a game; by default any may change."""

    def check_overlay(self, game: Game, name: str) -> None:
        """Refuse what the overlay `name` shows (the API's analysis and probabilities show the same) where
        the player could not turn it on: a mode without it, or a game whose rules keep it off (between two
        people, neither seat may see more than the other)."""
        if name not in game.options.names():
            raise Refused(
                f"{self.title} games have no {name.replace('_', ' ')}: neither it nor what it shows is available"
            )
        self.check_options(game, {name: True})

    def computer_to_move(self, game: Game) -> bool:
        """Whether the computer holds the seat to move (it then plays it, at a human pace)."""
        return False

    def computer_move(self, game: Game, rng: random.Random, limits: Limits) -> Move:
        """The computer's next move, when computer_to_move says it has one."""
        raise Refused(f"no computer plays {self.title} games")

    def red(self, game: Game) -> str | None:
        """The second player of a game of two; one-player games have none."""
        return None

    def seat_reclaimable(self, game: Game, player: str) -> bool:
        """Whether `player` may take back a seat they offered (reclaim_seat); only games of two have any."""
        return False

    def reclaim_seat(self, game: Game, player: str) -> Game:
        """The game with an offered seat taken back from whoever took it and never moved."""
        raise Refused(f"{self.title} games have no seat to free")

    def no_guess_deal(self, game: Game) -> bool:
        """Whether a reveal now makes the layout by a no-guess search: work the service limits per client,
        and makes where slow work runs when the board is big. Only fixed-layout modes search."""
        return False

    def from_board(self, board: Any, options: Options, seats: list[str], secret: bytes) -> Game:
        """A new game of the board a board id names (classic.BoardId); only fixed-layout modes have them."""
        raise Invalid(f"{self.title} games have no fixed layout to play from a board id")

    def options(self, **settings: bool) -> Options:
        """This mode's settings from names; an unknown name is refused with the names there are."""
        return self.options_class(**self.options_class.checked(settings))

    # ----- moves ------------------------------------------------------

    def apply(
        self,
        game: Game,
        move: Move,
        *,
        rng: random.Random,
        now: float,
        analyzer: Analyzer | None = None,
        limits: Limits | None = None,
    ) -> tuple[Game, Outcome]:
        """Apply a move to a copy of `game`. `analyzer` must match the game's position; it is updated in place."""
        actions = ACTIONS + self.extra_actions
        if move.action not in actions:
            raise Invalid(
                f"unknown action {move.action!r} in a {self.title} game: expected one of {', '.join(actions)}"
            )
        if move.action == "undo":
            return undo(game)
        if game.status != "playing":
            raise Refused(f"the game is {game.status}: start a new game or undo")
        index = game.index(move.x, move.y) if move.action not in self.extra_actions else game.last_cell
        changed = game.copy()
        rng = self.move_rng(changed, move, rng)
        turn = Turn(changed, analyzer or Analyzer(game.position()), rng, limits or Limits(), now)
        if move.action == "flag":
            flag(turn, index, move.mark)
        elif move.action == "reveal":
            check_revealable(game, index)
            self.reveal_cell(turn, index)
        elif move.action == "chord":
            for target in chord_targets(game, index):
                # One by one, each under the rules as they stand after the ones before.
                if turn.game.cells[target] == COVERED and turn.game.status == "playing":
                    self.reveal_cell(turn, target)
        else:
            self.act(turn, move)
        if turn.game.status == "playing" and move.action != "flag":
            self.after_action(turn)
        new = turn.game
        new.last_cell = index
        new.history.append(turn.undo)
        new.version += 1
        turn.outcome.analyzer = turn.analyzer
        return new, turn.outcome

    # Actions of this mode beyond ACTIONS (help); they name no cell, and `act` applies them.
    extra_actions: ClassVar[tuple[str, ...]] = ()

    def board_actions(self) -> tuple[str, ...]:
        """What a player of this mode may do (the page's board offers these and no others)."""
        return ACTIONS + self.extra_actions

    def board_data(self, game: Game) -> dict[str, str]:
        """What else the page's board must know to take a move (data attributes); by default nothing."""
        return {}

    def act(self, turn: Turn, move: Move) -> None:
        raise NotImplementedError

    def after_action(self, turn: Turn) -> None:
        """What follows every action that may reveal (assists); by default nothing."""

    def move_rng(self, game: Game, move: Move, rng: random.Random) -> random.Random:
        """The randomness a move deals with (`game` is the copy the move changes): by default the one given."""
        return rng

    def reveal_cell(self, turn: Turn, index: int) -> None:
        """Reveal one covered, unflagged cell: the heart of a mode."""
        raise NotImplementedError

    def open_safe_cell(self, turn: Turn, index: int, mines: set[int] | frozenset[int]) -> None:
        """Open a safe cell under the layout `mines` (zeros flood, flagged cells stay shut), then see if that won."""
        game, board = turn.game, turn.game.board
        opened = board.flood(
            index,
            number_at=lambda i: board.mines_around(i, mines),
            opens=lambda i: game.cells[i] == COVERED and game.marks.get(i) != FLAG,
        )
        turn.open_cells(opened)
        self.win_if_cleared(turn)

    def win_if_cleared(self, turn: Turn) -> None:
        """Once every safe cell is open the game is won, and, as classic games do, every mine is
        flagged: none left to count."""
        game = turn.game
        if turn.win_deferred or game.safe_left:
            return
        mines = [index for index, symbol in enumerate(game.cells) if symbol in (COVERED, MINE)]
        for mine in mines:
            if game.cells[mine] == COVERED and game.marks.get(mine) != FLAG:
                turn.set_mark(mine, FLAG)
        game.finish("won", turn.now, mines)
        turn.outcome.message = "Cleared: every safe cell is open."

    # ----- advice -----------------------------------------------------

    def hint(self, game: Game, analyzer: Analyzer) -> Hint:
        raise NotImplementedError

    # Whether the bot (DESIGN.md §1.4) plays this mode's games: the page offers it only where it does.
    bot_plays: ClassVar[bool] = False

    def bot_choice(self, game: Game, analyzer: Analyzer, rng: random.Random) -> BotChoice:
        """The cell the bot would open next; `analyzer` must match the game's position."""
        raise Refused(f"the bot plays classic and help games, not {self.title} games")

    def proven_hint(self, game: Game, analyzer: Analyzer) -> Hint | None:
        """What the numbers the player sees prove, whatever the mode: a flag that could be wrong, the
        first click's promise, or a proven-safe cell with its proof; None when nothing is proven safe.
        Never from a layout the mode keeps: two layouts behind one position get the same answer."""
        if game.status != "playing":
            raise Refused(f"the game is {game.status}: no hints after the end")
        statuses = analyzer.classify()
        for index, mark in sorted(game.marks.items()):
            if mark == FLAG and statuses[game.cell(index)] is not Status.MINE:
                return Hint("wrong_flag", "You flagged a cell that could be empty", game.cell(index))
        if game.started_at is None:
            return Hint("start", self.first_click_hint(game))
        safe = [cell for cell, status in statuses.items() if status is Status.SAFE]
        if not safe:
            return None
        # A cell next to the numbers, near the last click, has the proof a player can follow.
        last = game.cell(game.last_cell) if game.last_cell is not None else (0, 0)
        cell = min(
            safe, key=lambda c: (analyzer.is_outside(c), max(abs(c[0] - last[0]), abs(c[1] - last[1])), c[1], c[0])
        )
        explanation = analyzer.explain(cell)
        return Hint("safe", "There are safe cells", cell, list(explanation.numbers), explanation.uses_count)

    def first_click_hint(self, game: Game) -> str:
        if getattr(game.options, "first_click_safe_only", False):
            return "Click anywhere: the first click is always safe"
        return "Click anywhere: the first click opens an area"

    def review_loss(self, game: Game, allowance: Allowance) -> LossReview | None:
        """What could be known when the game was lost, from the position before the losing action;
        None for a game not lost (or lost before it kept its history). Interrupted past the allowance."""
        if game.status != "lost" or game.exploded is None or not game.history:
            return None
        before, _ = rewound(game)
        analyzer = Analyzer(before.position())
        clicked = game.cell(game.exploded)
        with analyzer.limits(allowance):
            statuses = analyzer.classify()
            probabilities = analyzer.probabilities(Budget(deadline=allowance.deadline))
        safe = sorted((cell for cell, status in statuses.items() if status is Status.SAFE), key=lambda c: (c[1], c[0]))
        example, proof, uses_count = None, [], False
        if safe:
            # A cell next to the numbers has a proof a player can follow; the nearest to the click, first.
            example = min(
                safe,
                key=lambda c: (analyzer.is_outside(c), max(abs(c[0] - clicked[0]), abs(c[1] - clicked[1])), c[1], c[0]),
            )
            with analyzer.limits(allowance):
                explanation = analyzer.explain(example)
            proof, uses_count = list(explanation.numbers), explanation.uses_count
        chance = probabilities.cells[clicked] if probabilities.cells is not None else None
        by_bot = game.state.get("bot_moves", 0) > before.state.get("bot_moves", 0)
        return LossReview(
            clicked, analyzer.is_outside(clicked), chance, safe, example, proof, uses_count, statuses, by_bot
        )

    # ----- what a player sees ------------------------------------------

    def public_state(self, game: Game) -> dict[str, Any]:
        """The mode's state as the JSON API shows it: all of `state`, never `hidden`."""
        return dict(game.state)

    def record_kind(self, game: Game) -> str:
        """What sets a game apart in the records beside its mode and size ("no guessing"): the records
        never rank boards of different kinds together. "" for the mode's usual boards."""
        return ""

    def counters(self, game: Game) -> list[tuple[str, str, int, str]]:
        """Extra counters of the status line: (id, label, value, title)."""
        return []

    def result_text(self, game: Game, clock: str) -> str:
        """The line under the status when the game is over."""
        counts = [count for count in self.result_counts(game) if count]
        if game.status == "won":
            return f"You won in {clock}{' with ' + ' and '.join(counts) if counts else ''}."
        if game.status == "lost":
            x, y = game.cell(game.exploded) if game.exploded is not None else (0, 0)
            return f"Boom: the cell at column {x + 1}, row {y + 1} was a mine ({', '.join([clock, *counts])})."
        return ""

    def result_counts(self, game: Game) -> list[str]:
        """What a result counts besides the time ("2 deaths"); empty strings for what did not happen."""
        return [counted(game.deaths, "death")]


def counted(number: int, noun: str) -> str:
    """ "1 death", "3 forced guesses"; "" for none."""
    if not number:
        return ""
    return f"{number} {noun}{('es' if noun.endswith('s') else 's') * (number != 1)}"
