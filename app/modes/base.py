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

import math
import random
from typing import Any, ClassVar, TypeVar

from app.core import seats as seating
from app.core.game import (
    ACTIONS,
    LAYOUT_SEEN,
    PRESET_TITLES,
    PRESETS,
    BotChoice,
    Choice,
    Game,
    Hint,
    Invalid,
    LossReview,
    Move,
    Options,
    Outcome,
    Refused,
    Switches,
    Turn,
    board_size,
    check_revealable,
    chord_targets,
    flag,
    rewound,
    undo,
)
from app.core.languages import N_, Text, gettext, lazy_gettext, list_text, ngettext, separated
from app.core.seats import OPPONENTS, Computer, Invitation, Player, Seat
from app.core.stored import NoState
from solver import Allowance, Analyzer, Budget, Limits, Status
from solver.position import COVERED, FLAG, MINE

# The first click's promise as the new-game API asks it, in the modes that deal around the first click.
FIRST_CLICK = Choice(
    {"opening": {"first_click_safe_only": False}, "safe": {"first_click_safe_only": True}},
    "opening",
    "what the first click promises: an area opened around it, or the cell alone safe",
    order=1,
)


# Whom a game's result is about when its player reads it (Mode.result_text).
YOU = "You"
# Why an overlay (the name of its setting) is refused in a mode without it (Mode.check_overlay).
OVERLAY_MISSING = {
    "probabilities": N_("%(title)s games have no probabilities: neither it nor what it shows is available"),
    "debug_overlay": N_("%(title)s games have no debug overlay: neither it nor what it shows is available"),
}

SwitchesT = TypeVar("SwitchesT", bound=Switches)


def options_of(game: Game, kind: type[SwitchesT]) -> SwitchesT:
    """A game's settings as its mode's own kind (options_class): new_game and the store make no other."""
    assert isinstance(game.options, kind), f"a {game.mode} game with {type(game.options).__name__}"
    return game.options


class Mode:
    name: ClassVar[str]
    title: ClassVar[str]  # for people
    summary: ClassVar[str] = ""  # the mode in one line, where a player chooses it
    # The sizes the new-game form offers, by name: (width, height, mines).
    presets: ClassVar[dict[str, tuple[int, int, int]]] = PRESETS
    # What the new-game API asks beyond the settings it takes as they are (Options.asked): each a choice
    # among settings, by the name the API gives it.
    choices: ClassVar[dict[str, Choice]] = {}
    # What the API says of an action only this mode takes, and of its seat fields (opponent, level); the
    # API names the modes each note is about.
    action_notes: ClassVar[dict[str, str]] = {}
    seat_notes: ClassVar[dict[str, str]] = {}
    # Players taking turns: more than one seat, filled by people, an invitation or the computer (app.core.seats).
    seat_count: ClassVar[int] = 1
    # The computer's levels, weakest first, where it may hold a seat; none where it may not.
    levels: ClassVar[tuple[str, ...]] = ()
    # What the computer does at each level, in a player's words (the new-game form and the rules say it).
    level_notes: ClassVar[dict[str, str]] = {}
    # A mode offered as a choice within another's row of the new-game form (cruel Flags within Flags'): that
    # mode's name. The row's choice is called `variant_label` and names each mode by its `variant_word`.
    variant_of: ClassVar[str | None] = None
    variant_label: ClassVar[str] = ""
    variant_word: ClassVar[str] = ""
    options_class: ClassVar[type[Switches]] = Options
    # The shape of `state` and of `hidden` as stored (TypedDicts with app.core.stored's @schema; checked on every
    # load); a mode without a secret has no hidden_schema, and its games store none.
    state_schema: ClassVar[type] = NoState
    hidden_schema: ClassVar[type | None] = None
    # Whether a mine is a point (Flags) rather than a loss: a review then grades a reveal by its chance of a mine.
    mines_score: ClassVar[bool] = False
    # Whether the rules leave nothing to luck (cruel but fair: a forced guess is safe, any other a mine).
    luck_free: ClassVar[bool] = False
    # Whether a mode with a secret may lack it (stored before the mode kept one): the others'
    # games without it are damaged.
    secret_optional: ClassVar[bool] = False

    # ----- a new game -------------------------------------------------

    def new_state(self) -> dict[str, Any]:
        """The mode's own visible state of a new game."""
        return {}

    def new_game(
        self,
        width: int,
        height: int,
        mines: int,
        options: Switches | None = None,
        seats: list[Seat] | None = None,
        *,
        rng: random.Random,
        secret: bytes = b"",
    ) -> Game:
        """A game nobody has played yet, its secret (if the mode keeps one) drawn from `rng`; `secret` is the
        server's key for what must not be worked out from what a player is shown (a board id's layout)."""
        width, height, mines = board_size(width, height, mines)
        options = options or self.options_class()
        if not isinstance(options, self.options_class):
            raise Invalid(
                lazy_gettext(
                    "%(title)s games take %(options)s",
                    title=lazy_gettext(self.title),
                    options=self.options_class.__name__,
                )
            )
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
        for name in sorted(type(options).helping()):
            if getattr(options, name):
                game.aided(name)
        self.deal(game, rng, secret)
        return game

    # Settings that leave a board to skill alone when several people play it at once (a race): where they
    # start from unless the room asks otherwise.
    even_settings: ClassVar[dict[str, bool]] = {}
    # The settings of the mode's board of the day (app.results.daily), on the Expert board; None: the mode has none.
    daily: ClassVar[dict[str, bool] | None] = None
    daily_title: ClassVar[str] = ""  # what the day's page calls that board

    def shared_board(
        self, width: int, height: int, mines: int, options: Switches, *, rng: random.Random, secret: bytes = b""
    ) -> Game:
        """A new game whose copies deal the same cells for the same clicks, whoever plays them (a race's
        board). By default a new game: a mode whose deals come from its secret and what the player sees has it."""
        return self.new_game(width, height, mines, options, rng=rng, secret=secret)

    def preset_title(self, name: str) -> str:
        # A mode with sizes of its own names them (marked with N_, as PRESET_TITLES are) by overriding this.
        return PRESET_TITLES.get(name, name.capitalize())

    def deal(self, game: Game, rng: random.Random, secret: bytes = b"") -> None:
        """Set up what a new game keeps secret (a fixed layout); modes that deal nothing ahead leave it."""

    # ----- seats -------------------------------------------------------

    def seat(self, game: Game, player: str, opponent: str | None = None, level: str | None = None) -> None:
        """Seat the players of a new game: its maker in seat 0, the others as `opponent` says (app.core.seats:
        the same screen, the default; an invitation; the computer at one of the mode's `levels`)."""
        if self.seat_count == 1:
            if opponent is not None or level is not None:
                raise Invalid(
                    lazy_gettext(
                        "%(title)s games have one player: no opponent or level to choose",
                        title=lazy_gettext(self.title),
                    )
                )
            game.seats = [Player(player)]
            return
        opponent = opponent or "screen"
        if opponent not in OPPONENTS:
            raise Invalid(
                lazy_gettext(
                    "unknown opponent %(opponent)s: expected one of %(opponents)s",
                    opponent=repr(opponent),
                    opponents=", ".join(OPPONENTS),
                )
            )
        if opponent != "computer" and level is not None:
            raise Invalid(lazy_gettext("a level is for a game against the computer"))
        if opponent == "computer":
            if not self.levels:
                raise Invalid(lazy_gettext("no computer plays %(title)s games", title=lazy_gettext(self.title)))
            level = level or self.levels[len(self.levels) // 2]
            if level not in self.levels:
                raise Invalid(
                    lazy_gettext(
                        "unknown level %(level)s: expected one of %(levels)s",
                        level=repr(level),
                        levels=", ".join(self.levels),
                    )
                )

        def other_seat() -> Seat:
            if opponent == "screen":
                return Player(player)
            if opponent == "invite":
                return seating.new_invitation()
            assert level is not None  # chosen above for a game against the computer
            return Computer(level)

        game.seats = [Player(player), *(other_seat() for _ in range(self.seat_count - 1))]

    @property
    def seat_fields(self) -> tuple[str, ...]:
        """What the new-game form asks beyond the size: who fills the other seats, and the computer's level."""
        return () if self.seat_count == 1 else ("opponent", "level") if self.levels else ("opponent",)

    def seating(self, game: Game) -> dict[str, str]:
        """How a game's other seats were filled, as the new-game form asks it (for a game like it)."""
        if self.seat_count == 1:
            return {}
        opponent, level = seating.opponent_of(game.seats)
        return {"opponent": opponent, "level": level or ""}

    def seat_to_move(self, game: Game) -> int:
        """The seat whose turn it is (the last one to move, once the game is over)."""
        return 0

    def winner(self, game: Game) -> int | None:
        """The seat that won a game of several seats once it is over; None for a draw, or while it goes on."""
        return None

    def seat_name(self, seat: int) -> str:
        """A seat as the page names it, in the language spoken now."""
        return str(self.seat_text(seat))

    def seat_text(self, seat: int) -> Text:
        """A seat as a refusal or a move's news names it: read in the language of whoever reads it."""
        return lazy_gettext("Player %(number)s", number=seat + 1)

    def moving_seat(self, game: Game, player: str) -> int | None:
        """The seat `player` moves for now: None in a game of one player; on one screen, whoever's turn it
        is; otherwise their own, which `apply` refuses out of turn (a one-player board several play moves
        for any of them, at any time). Refused for whoever only watches."""
        if self.seat_count == 1 and len(game.seats) == 1:
            return None
        held = seating.held_by(game.seats, player)
        if not held:
            raise Refused(lazy_gettext("you are watching this game: only its players move"))
        if self.seat_count == 1:
            return min(held)  # one board played by several (a co-op room): the record says whose move it was
        turn = self.seat_to_move(game)
        return turn if turn in held else min(held)

    def computer_to_move(self, game: Game) -> bool:
        """Whether the computer holds the seat to move (it then plays it, at a human pace)."""
        return (
            game.status == "playing"
            and self.seat_count > 1
            and isinstance(game.seats[self.seat_to_move(game)], Computer)
        )

    def computer_move(self, game: Game, rng: random.Random, limits: Limits) -> Move:
        """The computer's next move, when computer_to_move says it has one."""
        raise Refused(lazy_gettext("no computer plays %(title)s games", title=lazy_gettext(self.title)))

    def seat_has_moved(self, game: Game, seat: int) -> bool:
        """Whether the player of `seat` has made a move in the game (a seat that has is theirs to the end)."""
        return True

    def seat_reclaimable(self, game: Game, player: str) -> bool:
        """Whether `player`, who sent an invitation, may free its seat again: whoever took it has not
        moved (the wrong person may have opened the link first: a forwarded message, a shared screen)."""
        number = seating.invitation(game.seats)
        return (
            number is not None
            and game.status == "playing"
            and player == game.maker
            and not game.seats[number].open  # type: ignore[union-attr]
            and not self.seat_has_moved(game, number)
        )

    def reclaim_seat(self, game: Game, player: str) -> Game:
        """The invitation's seat free again, behind a new link: the old link, which the wrong person holds,
        opens nothing."""
        number = seating.invitation(game.seats)
        if not self.seat_reclaimable(game, player):
            if number is None or player != game.maker:
                raise Refused(lazy_gettext("only the player who sent an invitation can free its seat"))
            if game.status == "won":
                raise Refused(lazy_gettext("the game is won: its seats stay as they were played"))
            if game.status != "playing":
                raise Refused(lazy_gettext("the game is lost: its seats stay as they were played"))
            name = self.seat_text(number)
            if game.seats[number].open:  # type: ignore[union-attr]
                raise Refused(lazy_gettext("%(seat)s's seat is free: send the link", seat=name))
            raise Refused(lazy_gettext("%(seat)s has moved in this game: the seat is theirs until it ends", seat=name))
        freed = game.copy()
        freed.seats[number] = seating.new_invitation()  # type: ignore[index]
        freed.version += 1  # the pages that show the game hear of it
        return freed

    def take_invitation(self, game: Game, player: str) -> Game | None:
        """The game with its open invitation's seat taken by `player`; None when someone took it first."""
        number = seating.open_seat(game.seats)
        if number is None:
            return None
        joined = game.copy()
        joined.seats[number] = Invitation(game.seats[number].key, player)  # type: ignore[union-attr]
        joined.version += 1  # the inviter's page hears of it
        return joined

    def legacy_seats(self, credentials: list[str], state: dict[str, Any]) -> list[Seat]:
        """The seats of a game stored before typed seats, from the credentials it stored as its seats and
        its state (app.core.stored); ValueError when they do not make seats of this mode."""
        if self.seat_count == 1:
            return [Player(credentials[0])]
        return seating.from_credentials(credentials, state.get("level"))

    def upgraded_state(self, state: dict[str, Any]) -> dict[str, Any]:
        """The mode's state as an older release stored it, in today's shape; by default as it is."""
        return state

    def check_options(self, game: Game, changes: dict[str, bool]) -> None:
        """Refuse a change of settings the mode does not allow during a game; by default any may change."""

    def check_overlay(self, game: Game, name: str) -> None:
        """Refuse what the overlay `name` (a key of OVERLAY_MISSING) shows (the API's analysis and probabilities
        show the same) where the player could not turn it on: a mode without it, or a game whose rules keep it
        off (between two people, neither seat may see more than the other)."""
        if name not in game.options.names():
            raise Refused(lazy_gettext(OVERLAY_MISSING[name], title=lazy_gettext(self.title)))
        self.check_options(game, {name: True})

    def no_guess_deal(self, game: Game) -> bool:
        """Whether a reveal now makes the layout by a no-guess search: work the service limits per client,
        and makes where slow work runs when the board is big. Only fixed-layout modes search."""
        return False

    # Whether a game of this mode has a board id, which plays its layout again (from_board).
    board_ids: ClassVar[bool] = False

    def from_board(self, board_id: str, options: Switches, secret: bytes) -> Game:
        """A new game of the board a board id names (Invalid for an id that names none); only fixed-layout
        modes have them."""
        raise Invalid(
            lazy_gettext("%(title)s games have no fixed layout to play from a board id", title=lazy_gettext(self.title))
        )

    def board_id(self, game: Game) -> str | None:
        """The id of the game's board, once it has one, whether or not the player may see it (shown_board_id)."""
        return None

    def shown_board_id(self, game: Game) -> str | None:
        """The board's id as its player may see it: a board others compete on keeps it until the game ends, as
        with it another game of the board would show the layout."""
        return None if game.sealed and game.status == "playing" else self.board_id(game)

    def layout_seen(self, game: Game) -> bool:
        """Whether the game is marked as played on a layout the player had seen in another game of its board (a
        board played again from its id): no result then."""
        return False

    def see_layout(self, game: Game) -> None:
        """Mark that the player saw the board's layout in another game of it: an aid, and the game no result."""
        game.aided(LAYOUT_SEEN)

    def start_cell(self, game: Game) -> int | None:
        """The cell a board dealt before its first click is marked to start on; None where the first click deals."""
        return None

    def options(self, **settings: bool) -> Switches:
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
                lazy_gettext(
                    "unknown action %(action)s in a %(title)s game: expected one of %(actions)s",
                    action=repr(move.action),
                    title=lazy_gettext(self.title),
                    actions=", ".join(actions),
                )
            )
        if move.action == "undo":
            return undo(game)
        if game.status != "playing":
            if game.status == "won":
                raise Refused(lazy_gettext("the game is won: start a new game or undo"))
            raise Refused(lazy_gettext("the game is lost: start a new game or undo"))
        if game.opens_at is not None and now < game.opens_at:
            raise Refused(lazy_gettext("the board opens in %(seconds)s s", seconds=math.ceil(game.opens_at - now)))
        # The mode's own actions name no cell: the game's last cell stays as it was.
        index = game.index(move.x, move.y) if move.action not in self.extra_actions else None
        changed = game.copy()
        rng = self.move_rng(changed, move, rng)
        turn = Turn(changed, analyzer or Analyzer(game.position()), rng, limits or Limits(), now, move)
        if index is None:
            self.act(turn, move)
        elif move.action == "flag":
            flag(turn, index, move.mark)
        elif move.action == "reveal":
            check_revealable(game, index)
            self.reveal_cell(turn, index)
        else:  # chord
            for target in chord_targets(game, index):
                # One by one, each under the rules as they stand after the ones before.
                if turn.game.cells[target] == COVERED and turn.game.status == "playing":
                    self.reveal_cell(turn, target)
        if turn.game.status == "playing" and move.action != "flag":
            self.after_action(turn)
        new = turn.game
        new.last_cell = game.last_cell if index is None else index
        new.history.append(turn.undo)
        new.version += 1
        turn.outcome.analyzer = turn.analyzer
        return new, turn.outcome

    # Actions of this mode beyond ACTIONS (help); they name no cell, and `act` applies them.
    extra_actions: ClassVar[tuple[str, ...]] = ()
    # What the bot's choice may be (BotChoice.action): a reveal, or an action of the mode's own before it.
    bot_actions: ClassVar[tuple[str, ...]] = ("reveal",)

    def bot_words(self, choice: BotChoice, played: bool, guess: str) -> str | None:
        """The bot's choice in words when it is an action of the mode's own (`guess`: the cell it would open,
        with its chance, in words); None for a reveal, which every mode words alike."""
        return None

    # How a replay's step names each action, with the cell it names (an action that names one always does):
    # whole phrases, so that a translator may inflect "column" and "row" after the verb. A mode with actions of
    # its own adds theirs.
    action_words: ClassVar[dict[str, str]] = {
        "reveal": N_("Reveal column %(x)s, row %(y)s"),
        "chord": N_("Chord column %(x)s, row %(y)s"),
        "flag": N_("Flag column %(x)s, row %(y)s"),
        "undo": N_("Undo"),
    }

    # What a room's log says a member did with an action of this mode's own, a sentence about them (%(name)s).
    acted_words: ClassVar[dict[str, str]] = {}

    def move_words(self, move: Move) -> str:
        """A move as a replay names it: "Reveal column 3, row 4", after its seat's name in a game of several."""
        words = self.action_words.get(move.action)
        if words is None:
            words = move.action.capitalize()
        else:
            cell = {"x": move.x + 1, "y": move.y + 1} if move.x is not None and move.y is not None else {}
            words = gettext(words, **cell)
        if move.seat is None or self.seat_count == 1:
            return words
        return gettext("%(seat)s: %(move)s", seat=self.seat_name(move.seat), move=words)

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
        turn.outcome.message = lazy_gettext("Cleared: every safe cell is open.")

    # ----- advice -----------------------------------------------------

    def hint(self, game: Game, analyzer: Analyzer) -> Hint:
        raise NotImplementedError

    # Whether the bot (DESIGN.md §1.4) plays this mode's games: the page offers it only where it does.
    bot_plays: ClassVar[bool] = False

    def bot_choice(self, game: Game, analyzer: Analyzer, rng: random.Random) -> BotChoice:
        """The cell the bot would open next; `analyzer` must match the game's position."""
        raise Refused(
            lazy_gettext("the bot plays classic and help games, not %(title)s games", title=lazy_gettext(self.title))
        )

    def proven_hint(self, game: Game, analyzer: Analyzer) -> Hint | None:
        """What the numbers the player sees prove, whatever the mode: a flag that could be wrong, the
        first click's promise, or a proven-safe cell with its proof; None when nothing is proven safe.
        Never from a layout the mode keeps: two layouts behind one position get the same answer."""
        if game.status != "playing":
            if game.status == "won":
                raise Refused(lazy_gettext("the game is won: no hints after the end"))
            raise Refused(lazy_gettext("the game is lost: no hints after the end"))
        statuses = analyzer.classify()
        for index, mark in sorted(game.marks.items()):
            if mark == FLAG and statuses[game.cell(index)] is not Status.MINE:
                return Hint("wrong_flag", lazy_gettext("You flagged a cell that could be empty"), game.cell(index))
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
        return Hint(
            "safe", lazy_gettext("There are safe cells"), cell, list(explanation.numbers), explanation.uses_count
        )

    def first_click_hint(self, game: Game) -> Text:
        if self.start_cell(game) is not None:
            return lazy_gettext("Start on the marked cell: whoever starts there is dealt the same board")
        if getattr(game.options, "first_click_safe_only", False):
            return lazy_gettext("Click anywhere: the first click is always safe")
        return lazy_gettext("Click anywhere: the first click opens an area")

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
        by_bot = self.bot_moves(game) > self.bot_moves(before)
        return LossReview(
            clicked, analyzer.is_outside(clicked), chance, safe, example, proof, uses_count, statuses, by_bot
        )

    # ----- what a player sees ------------------------------------------

    def public_state(self, game: Game) -> dict[str, Any]:
        """The mode's state as the JSON API shows it: all of `state`, never `hidden`."""
        return dict(game.state)

    def missed_cells(self, game: Game) -> list[int]:
        """Cells a lost game shows the player missed (proven safe when they asked for help); none by default."""
        return []

    def missed_words(self, game: Game) -> str:
        """What the page says of the missed cells it outlines (missed_cells)."""
        return gettext("The cells outlined in green were missed.")

    def clicks(self, game: Game) -> int | None:
        """The clicks a game of a fixed layout took (its efficiency against 3BV); None where the layout is dealt
        as play goes."""
        return None

    def bot_moves(self, game: Game) -> int:
        """Moves the bot played for the player (Play for me): such a game is nobody's result."""
        return 0

    def forced_guesses(self, game: Game) -> int:
        """Guesses the game forced on the player, where the mode counts them."""
        return 0

    def record_kind(self, game: Game) -> str:
        """What sets a game apart in the records beside its mode and size ("no guessing"): the records
        never rank boards of different kinds together. "" for the mode's usual boards."""
        return ""

    def counters(self, game: Game) -> list[tuple[str, str, int, str]]:
        """Extra counters of the status line: (id, label, value, title)."""
        return []

    def result_text(self, game: Game, clock: str, who: str = YOU) -> str:
        """The line under the status when the game is over. `who`: whom it is about, "You" for the player and
        their name where others read it (a shared replay)."""
        counts = [count for count in self.result_counts(game) if count]
        if game.status == "won":
            if not counts:
                if who == YOU:
                    return gettext("You won in %(clock)s.", clock=clock)
                return gettext("%(who)s won in %(clock)s.", who=who, clock=clock)
            if who == YOU:
                return gettext("You won in %(clock)s with %(counts)s.", clock=clock, counts=list_text(counts))
            return gettext("%(who)s won in %(clock)s with %(counts)s.", who=who, clock=clock, counts=list_text(counts))
        if game.status == "lost":
            x, y = game.cell(game.exploded) if game.exploded is not None else (0, 0)
            details = separated([clock, *counts])
            if who == YOU:
                return gettext(
                    "Boom: the cell at column %(x)s, row %(y)s was a mine (%(details)s).",
                    x=x + 1,
                    y=y + 1,
                    details=details,
                )
            return gettext(
                "%(who)s lost: the cell at column %(x)s, row %(y)s was a mine (%(details)s).",
                who=who,
                x=x + 1,
                y=y + 1,
                details=details,
            )
        return ""

    def result_counts(self, game: Game) -> list[str]:
        """What a result counts besides the time ("2 deaths"), in the reader's language; "" for what did not
        happen."""
        return [ngettext("%(num)s death", "%(num)s deaths", game.deaths) if game.deaths else ""]
