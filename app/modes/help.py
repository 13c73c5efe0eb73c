"""Ask for help (Magnus Hoff's deterministic variant, DESIGN.md §1.2): classic rules plus a Help action.

Help is granted when no covered cell can be proven safe: the next cell
opened, by any means (a click, a chord, an assist), is then opened safely,
and a mine found that way is shown and flagged for the player instead of
killing. Asked while a proven-safe cell exists, help loses the game at once,
and every proven-safe cell the player missed is shown. So luck never decides
a game; only mistakes do.
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any, ClassVar

from pydantic import StrictBool

from app.core.game import BotChoice, Game, Move, Refused, Turn
from app.core.languages import N_, gettext, lazy_gettext, ngettext, separated
from app.core.stored import Cell, Count, schema
from app.modes.base import YOU
from app.modes.classic import Classic, ClassicState
from solver import Analyzer, Interrupted


@schema
class HelpState(ClassicState):
    help_granted: Count  # times help was asked for and granted
    help_used: Count  # granted help spent on a cell
    help_pending: StrictBool  # granted and not yet spent
    missed: list[Cell]  # after help was asked with proven-safe cells about: those cells


class Help(Classic):
    name = "help"
    title = N_("Ask for help")
    summary = N_("Classic with a Help button: granted when nothing can be proven, a loss when something can.")
    state_schema = HelpState
    extra_actions = ("help",)
    bot_actions = ("reveal", "help")
    action_words: ClassVar[dict[str, str]] = {**Classic.action_words, "help": N_("Help")}
    acted_words: ClassVar[dict[str, str]] = {"help": N_("%(name)s asked for help")}
    action_notes = {"help": "granted when no covered cell is provably safe, a loss otherwise"}
    # Luck decides nothing here already (help is granted where a guess would be forced).
    even_settings: ClassVar[dict[str, bool]] = {}
    daily: ClassVar[dict[str, bool] | None] = None  # Classic's board of the day is enough

    def new_state(self) -> dict[str, Any]:
        return {**super().new_state(), "help_granted": 0, "help_used": 0, "help_pending": False, "missed": []}

    def act(self, turn: Turn, move: Move) -> None:
        game = turn.game
        if game.state["help_pending"]:
            raise Refused(lazy_gettext("Help is already granted: the next cell you open is safe."))
        if game.started_at is not None:
            try:
                with turn.analyzer.limits(turn.limits.timed()):
                    safe = sorted(turn.analyzer.safe_cells(), key=lambda cell: (cell[1], cell[0]))
            except Interrupted:
                # Judging help by half an analysis could lose a game the player played right.
                raise Refused(
                    lazy_gettext("The position is too complex to judge a call for help in time; nothing changed.")
                ) from None
            if safe:
                game.state["missed"] = [game.index(*cell) for cell in safe]
                game.finish("lost", turn.now, game.mode_secret()["mines"])
                return
        game.state["help_granted"] += 1
        game.state["help_pending"] = True
        turn.outcome.message = lazy_gettext(
            "Help granted: no cell could be proven safe. The next cell you open is safe "
            "(a mine there is flagged for you)."
        )

    def bot_choice(self, game: Game, analyzer: Analyzer, rng: random.Random) -> BotChoice:
        """As in classic, but a guess is never taken blind: help is free when no cell is proven safe, so the
        bot asks for it first, and the guess it then opens is safe."""
        choice = super().bot_choice(game, analyzer, rng)
        if choice.safe:
            return choice
        if game.state["help_pending"]:
            return replace(choice, safe=True, helped=True)
        return replace(choice, action="help")

    def reveal_cell(self, turn: Turn, index: int) -> None:
        game = turn.game
        if not game.state["help_pending"] or game.started_at is None:
            if game.state["help_pending"]:
                # Help asked before the first click: the first click spends it (and is safe anyway).
                self._spend(game)
            super().reveal_cell(turn, index)
            return
        self._spend(game)
        if index in game.mode_secret()["mines"]:
            turn.show_mine(index)
            turn.outcome.message = lazy_gettext("Help found a mine there and flagged it for you.")
            self.win_if_cleared(turn)
            return
        super().reveal_cell(turn, index)

    @staticmethod
    def _spend(game: Game) -> None:
        game.state["help_pending"] = False
        game.state["help_used"] += 1

    def result_text(self, game: Game, clock: str, who: str = YOU) -> str:
        if game.status == "lost" and game.exploded is None:
            missed = len(game.state["missed"])
            details = separated([clock, *[count for count in self.result_counts(game) if count]])
            if who == YOU:
                return ngettext(
                    "You asked for help while %(num)s cell could be proven safe (outlined in green): game over "
                    "(%(details)s).",
                    "You asked for help while %(num)s cells could be proven safe (outlined in green): game over "
                    "(%(details)s).",
                    missed,
                    details=details,
                )
            return ngettext(
                "%(who)s asked for help while %(num)s cell could be proven safe (outlined in green): game over "
                "(%(details)s).",
                "%(who)s asked for help while %(num)s cells could be proven safe (outlined in green): game over "
                "(%(details)s).",
                missed,
                who=who,
                details=details,
            )
        return super().result_text(game, clock, who)

    def result_counts(self, game: Game) -> list[str]:
        granted, used = game.state["help_granted"], game.state["help_used"]
        helped = (
            ngettext("help %(num)s time", "help %(num)s times", used)
            if used
            else (gettext("no help") if not granted else "")
        )
        return [helped, *super().result_counts(game)]

    def counters(self, game: Game) -> list[tuple[str, str, int, str]]:
        return [
            ("help", gettext("Help used"), game.state["help_used"], gettext("Times granted help opened a cell safely")),
            *super().counters(game),
        ]

    def bot_words(self, choice: BotChoice, played: bool, guess: str) -> str | None:
        if choice.action != "help":
            return None
        if played:
            return gettext(
                "The bot asked for help: no cell can be proven safe (its best guess: %(guess)s).", guess=guess
            )
        return gettext(
            "The bot would ask for help: no cell can be proven safe (its best guess: %(guess)s).", guess=guess
        )

    def missed_cells(self, game: Game) -> list[int]:
        return list(game.state["missed"])

    def missed_words(self, game: Game) -> str:
        return gettext("The cells outlined in green could be proven safe when you asked.")

    def public_state(self, game: Game) -> dict[str, Any]:
        # The missed cells are what the numbers proved when help was asked: nothing of the layout.
        return {
            **super().public_state(game),
            **{key: game.state[key] for key in ("help_granted", "help_used", "help_pending", "missed")},
        }
