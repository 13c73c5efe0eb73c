"""Minesweeper Flags (DESIGN.md §1.3): two players take turns on one fixed layout, and a mine is a point.

The MSN Messenger game, and the game of the KöMaL S.27 problem (May 2007). The
layout is dealt uniformly when the game is made (a mine is a point, so no click
is spared) and kept in `hidden` until the end. A seat reveals a cell: a mine
scores for it, is shown in its colour, and it moves again; a number, or a zero
with its flood, ends its turn. The game ends when one seat can no longer be
caught (more than half the mines) or every mine is found; with "play until the
board is uncovered" (KöMaL's rule) only the second. Once a game, a seat that
is behind may drop the bomb instead: every covered cell of a 5×5 square is
uncovered, its mines score for the bomber, and the turn ends.

No undo, no hints, no marks: a move is a reveal or the bomb, by the seat whose
turn it is. Everything in `state` (scores, whose turn, who found which mine) is
what both seats see.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, Literal

from pydantic import Field, StrictBool
from typing_extensions import TypedDict

from app.core import seats as seating
from app.core.game import Game, Hint, Invalid, Move, Outcome, Refused, Switches, Turn, check_revealable, setting
from app.core.languages import N_, Text, lazy_gettext, lazy_ngettext
from app.core.stored import Cell, Count, Layout, schema
from app.modes.base import YOU, Mode, options_of
from solver import Analyzer, Limits
from solver.flags import BOMB_WORTH, FLAGS_LEVELS, FlagsChoice, FlagsView, flags_bomb
from solver.position import COVERED

SEATS = 2
BOMB_SIDE = 5  # the bomb uncovers a square of this side (MSN's rule)
SEAT_NAMES = (N_("Blue"), N_("Red"))  # MSN's colours; the page paints each seat's mines in its own
LEVELS = ("easy", "normal", "hard")
# The page's sizes: MSN's board, and KöMaL's three at MSN's density (a fifth of the cells).
FLAGS_PRESETS = {
    "msn": (16, 16, 51),
    "komal-20": (20, 20, 80),
    "komal-20x100": (20, 100, 400),
    "komal-100": (100, 100, 2000),
}
PRACTICE_ONLY = N_("the probability overlay is practice against the computer: never in a game between two people")


@dataclass
class FlagsOptions(Switches):
    bomb: bool = setting(
        "The bomb: once a game, a player who is behind may uncover a 5×5 area",
        order=50,
        default=True,
        fixed=True,
        asked="flags: once a game, the player who is behind may uncover a 5x5 area",
    )
    uncover_all: bool = setting(
        "Play until the board is uncovered (KöMaL rule)",
        order=51,
        fixed=True,
        asked="flags: play until every mine is found (the KöMaL rule)",
    )
    # Practice against the computer only: between two people, one seat alone must not see more.
    probabilities: bool = setting("Mine probabilities (practice against the computer)", order=52)


SeatNumber = Literal[0, 1]
PerSeat = Annotated[list[Count], Field(min_length=SEATS, max_length=SEATS)]


@schema
class FlagsState(TypedDict):
    turn: SeatNumber  # the seat to move
    scores: PerSeat
    found: Annotated[
        list[list[Cell]], Field(min_length=SEATS, max_length=SEATS)
    ]  # the mines each seat uncovered, in order
    bombs: Annotated[
        list[StrictBool], Field(min_length=SEATS, max_length=SEATS)
    ]  # whether each seat has dropped its bomb
    last: list[Cell]  # what the last move uncovered (the page marks it)
    last_seat: SeatNumber | None
    winner: SeatNumber | None  # once the game is over; None then is a draw


@schema
class FlagsSecret(TypedDict):
    layout: Layout


class Flags(Mode):
    name = "flags"
    title = N_("Flags (two players)")
    summary = N_(
        "Two players take turns and each mine found is a point: on one screen, by a link, or against the computer."
    )
    presets = FLAGS_PRESETS
    seat_count = SEATS
    mines_score = True
    # How the new-game form names each kind of opponent, and each preset.
    opponent_words: ClassVar[dict[str, str]] = {
        "screen": N_("A friend, on this screen"),
        "invite": N_("A friend, through a link"),
        "computer": N_("The computer"),
    }
    levels = LEVELS
    # Each level as the form and the rules name it.
    level_titles: ClassVar[dict[str, str]] = {"easy": N_("easy"), "normal": N_("normal"), "hard": N_("hard")}
    # The rule of a turn, in the page's "This game" list.
    turn_rule = N_("A mine is a point and another move; a number ends the turn.")
    variant_label = N_("Luck")
    variant_word = N_("Dealt: the mines are placed at the start")
    # What each level does, as a phrase that follows "The computer (level)".
    level_notes: ClassVar[dict[str, str]] = {
        "easy": N_("opens a cell at random"),
        "normal": N_("takes the mines the numbers around prove, otherwise the likeliest mine unlikely to open an area"),
        "hard": N_(
            "takes every proven mine, otherwise weighs each cell's chance of a mine against what its number "
            "would show you"
        ),
    }
    action_notes = {"bomb": f"the {BOMB_SIDE}x{BOMB_SIDE} area around x, y"}
    seat_notes = {
        "opponent": "Red is a friend on the same screen (the default), whoever opens the invitation link, "
        "or the computer",
        "level": "against the computer, its level (normal by default)",
    }
    options_class = FlagsOptions
    state_schema = FlagsState
    hidden_schema: ClassVar[type | None] = FlagsSecret
    actions: ClassVar[tuple[str, ...]] = ("reveal", "bomb")
    action_words: ClassVar[dict[str, str]] = {**Mode.action_words, "bomb": N_("Bomb column %(x)s, row %(y)s")}

    def preset_title(self, name: str) -> str:
        return {"msn": "MSN"}.get(name, "KöMaL")

    def new_state(self) -> dict[str, Any]:
        return {
            "turn": 0,
            "scores": [0, 0],
            "found": [[], []],
            "bombs": [False, False],
            "last": [],
            "last_seat": None,
            "winner": None,
        }

    def deal(self, game: Game, rng: random.Random, secret: bytes = b"") -> None:
        # Uniform over every layout: a mine is a point, so no cell is spared.
        game.hidden = {"layout": sorted(rng.sample(range(game.width * game.height), game.mines))}

    def seat(self, game: Game, player: str, opponent: str | None = None, level: str | None = None) -> None:
        """Blue is the maker; Red a friend on the same screen (the default), by an invitation, or the computer."""
        super().seat(game, player, opponent, level)
        if game.options.probabilities and not seating.computers(game.seats):
            raise Invalid(lazy_gettext(PRACTICE_ONLY))

    def seat_to_move(self, game: Game) -> int:
        return game.state["turn"]

    def seat_text(self, seat: int) -> Text:
        return lazy_gettext(SEAT_NAMES[seat])

    def winner(self, game: Game) -> int | None:
        return game.state["winner"]

    def seat_has_moved(self, game: Game, seat: int) -> bool:
        return any(record["state"]["turn"] == seat for record in game.history)

    def upgraded_state(self, state: dict[str, Any]) -> dict[str, Any]:
        # Releases before typed seats kept who played Red in the state; the seats say it now.
        return {name: value for name, value in state.items() if name not in ("opponent", "level")}

    def board_actions(self) -> tuple[str, ...]:
        return self.actions

    def board_data(self, game: Game) -> dict[str, str]:
        # The bomb's square, which the page outlines while a player aims it.
        return {"bomb-side": str(BOMB_SIDE)} if options_of(game, FlagsOptions).bomb else {}

    def check_options(self, game: Game, changes: dict[str, bool]) -> None:
        """The rules stay as the game was made; the probability overlay is practice against the computer."""
        for name in changes:
            if game.options.fixed(name) and changes[name] != getattr(game.options, name):
                raise Refused(
                    lazy_gettext("the rules of a Flags game are set when it is made: start a new game to change them")
                )
        if changes.get("probabilities") and not seating.computers(game.seats):
            raise Refused(lazy_gettext(PRACTICE_ONLY))

    # The computer's players by level, where its bomb would fall with what it is worth, and the worth
    # for which the hard computer drops it (a square expected to hold that many mines).
    computer_levels: ClassVar[Mapping[str, Callable[[FlagsView, random.Random], FlagsChoice]]] = FLAGS_LEVELS
    computer_bomb_worth: ClassVar[float] = BOMB_WORTH

    def computer_bomb(self, view: FlagsView, side: int) -> tuple[tuple[int, int], float] | None:
        return flags_bomb(view, side)

    def computer_move(self, game: Game, rng: random.Random, limits: Limits) -> Move:
        """The computer's move at its level, from the position both seats see, within the request's time;
        the hard computer drops its bomb where a square is worth computer_bomb_worth mines."""
        view = FlagsView.of(game.position(), limits.deadline)
        state = game.state
        level = game.seats[1].level  # type: ignore[union-attr]
        if (
            level == "hard"
            and options_of(game, FlagsOptions).bomb
            and not state["bombs"][1]
            and state["scores"][1] < state["scores"][0]
        ):
            target = self.computer_bomb(view, BOMB_SIDE)
            if target is not None and target[1] >= self.computer_bomb_worth:
                return Move("bomb", *target[0], seat=1)
        choice = self.computer_levels[level](view, rng)
        return Move("reveal", *choice.cell, seat=1)

    def from_layout(
        self, width: int, height: int, layout: frozenset[int] | set[int], options: FlagsOptions | None = None
    ) -> Game:
        """A game of a layout given whole (hand-made positions, a tournament's boards)."""
        game = self.new_game(width, height, len(layout), options, rng=random.Random(0))
        game.hidden = {"layout": sorted(layout)}
        return game

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
        if move.action not in self.actions:
            raise Invalid(
                lazy_gettext(
                    "unknown action %(action)s in a Flags game: expected one of %(actions)s",
                    action=repr(move.action),
                    actions=", ".join(self.actions),
                )
            )
        if game.status != "playing":
            raise Refused(lazy_gettext("the game is over: start a new game"))
        seat = game.state["turn"]
        if move.seat is not None and move.seat != seat:
            raise Refused(lazy_gettext("it is %(seat)s's turn: wait for their move", seat=self.seat_text(seat)))
        index = game.index(move.x, move.y)
        changed = game.copy()
        rng = self.move_rng(changed, move, rng)
        turn = Turn(changed, analyzer or Analyzer(game.position()), rng, limits or Limits(), now, move)
        if changed.started_at is None:
            changed.started_at = now
        if move.action == "reveal":
            check_revealable(game, index)
            scored = self.reveal(turn, index, seat)
            again = scored > 0
        else:
            scored = self.drop_bomb(turn, self._bomb_area(game, index, seat), seat)
            changed.state["bombs"][seat] = True
            again = False
        state = changed.state
        state["last"] = sorted(turn.outcome.changed)
        state["last_seat"] = seat
        turn.outcome.message = self._news(seat, move.action, scored)
        self._end_if_decided(turn)
        if changed.status == "playing" and not again:
            state["turn"] = 1 - seat
        changed.last_cell = index
        changed.history.append(turn.undo)
        changed.version += 1
        turn.outcome.analyzer = turn.analyzer
        return changed, turn.outcome

    def _bomb_area(self, game: Game, centre: int, seat: int) -> list[int]:
        """The covered cells of the 5×5 square around `centre`, moved inside the board where it would
        stick out; refused unless the seat may drop its bomb now."""
        refusal = self.bomb_refusal(game, seat)
        if refusal is not None:
            raise Refused(refusal)
        x, y = game.cell(centre)
        left, top = self.bomb_corner(game.width, x), self.bomb_corner(game.height, y)
        area = [
            game.board.index(column, row)
            for row in range(top, min(game.height, top + BOMB_SIDE))
            for column in range(left, min(game.width, left + BOMB_SIDE))
        ]
        covered = [cell for cell in area if game.cells[cell] == COVERED]
        if not covered:
            x, y = game.cell(centre)
            raise Refused(
                lazy_gettext("nothing is covered in the bomb's area around column %(x)s, row %(y)s", x=x + 1, y=y + 1)
            )
        return covered

    @staticmethod
    def bomb_refusal(game: Game, seat: int) -> Text | None:
        """Why `seat` may not drop its bomb now (the page offers it only when nothing stands in the way):
        once a game, to the player who is behind."""
        if not options_of(game, FlagsOptions).bomb:
            return lazy_gettext("the bomb is turned off in this game")
        if game.state["bombs"][seat]:
            return lazy_gettext(
                "%(seat)s has dropped the bomb already: once a game", seat=lazy_gettext(SEAT_NAMES[seat])
            )
        scores, other = game.state["scores"], 1 - seat
        if scores[seat] >= scores[other]:
            return lazy_gettext(
                "the bomb is for the player who is behind: %(seat)s has %(score)s, %(other)s %(other_score)s",
                seat=lazy_gettext(SEAT_NAMES[seat]),
                score=scores[seat],
                other=lazy_gettext(SEAT_NAMES[other]),
                other_score=scores[other],
            )
        return None

    @staticmethod
    def bomb_corner(side: int, centre: int) -> int:
        """Where the bomb's square starts along one side: centred on the cell, shifted back onto the board."""
        return max(0, min(centre - BOMB_SIDE // 2, side - BOMB_SIDE))

    def reveal(self, turn: Turn, index: int, seat: int) -> int:
        """Reveal one covered cell for `seat`; the mines found (a mine is a point and another move)."""
        return self.uncover(turn, [index], seat, frozenset(turn.game.mode_secret()["layout"]))

    def drop_bomb(self, turn: Turn, cells: list[int], seat: int) -> int:
        """Uncover the covered cells of the bomb's square for `seat`; the mines found."""
        return self.uncover(turn, cells, seat, frozenset(turn.game.mode_secret()["layout"]))

    def final_layout(self, turn: Turn) -> list[int]:
        """The mines a finished game shows."""
        return turn.game.mode_secret()["layout"]

    @staticmethod
    def uncover(turn: Turn, cells: list[int], seat: int, mines: frozenset[int]) -> int:
        """Uncover the covered ones of `cells` under the layout `mines`: a mine scores for `seat`, a zero
        floods. Returns the mines found."""
        game = turn.game
        board = game.board
        scored = 0
        for index in cells:
            if game.cells[index] != COVERED:
                continue  # opened by an earlier zero's flood
            if index in mines:
                turn.show_mine(index)
                game.state["found"][seat].append(index)
                game.state["scores"][seat] += 1
                scored += 1
                continue
            turn.open_cells(
                board.flood(
                    index,
                    number_at=lambda i: board.mines_around(i, mines),
                    opens=lambda i: game.cells[i] == COVERED,
                )
            )
        return scored

    @staticmethod
    def _news(seat: int, action: str, scored: int) -> str | Text:
        """What the move did, as the page's panel says it ("" for a move that says nothing): a Text, as the move is
        made where its reader is not known."""
        name = lazy_gettext(SEAT_NAMES[seat])
        if action == "bomb":
            return lazy_ngettext(
                "%(seat)s dropped the bomb: %(num)s mine.",
                "%(seat)s dropped the bomb: %(num)s mines.",
                scored,
                seat=name,
            )
        return lazy_gettext("%(seat)s found a mine and moves again.", seat=name) if scored else ""

    def _end_if_decided(self, turn: Turn) -> None:
        """Over once a seat cannot be caught (unless the board is to be uncovered) or every mine is found."""
        game = turn.game
        scores = game.state["scores"]
        found = sum(scores)
        uncover_all = options_of(game, FlagsOptions).uncover_all
        decided = found == game.mines or (not uncover_all and 2 * max(scores) > game.mines)
        if not decided:
            return
        winner = 0 if scores[0] > scores[1] else 1 if scores[1] > scores[0] else None
        game.state["winner"] = winner
        layout = self.final_layout(turn)
        game.finish("won", turn.now, layout)
        turn.outcome.changed.update(layout)
        turn.outcome.message = self._result(game)

    # ----- what the seats see -----------------------------------------------

    def hint(self, game: Game, analyzer: Analyzer) -> Hint:
        raise Refused(lazy_gettext("Flags games have no hints: the other player would not have them"))

    def result_text(self, game: Game, clock: str, who: str = YOU) -> str:
        # About the seats, whoever reads it: each is named by its colour.
        return str(self._result(game))

    def _result(self, game: Game) -> Text | str:
        """The end of the game in words, read in the reader's language (the news of the last move is made in a game
        thread, or the slow lane, for whoever reads it later)."""
        if game.status == "playing":
            return ""
        scores = game.state["scores"]
        winner = game.state["winner"]
        score = f"{max(scores)}–{min(scores)}"
        if winner is None:
            return lazy_gettext("A draw, %(score)s.", score=score)
        return lazy_gettext("%(seat)s wins, %(score)s.", seat=self.seat_text(winner), score=score)


assert set(Flags.opponent_words) == set(seating.OPPONENTS)
