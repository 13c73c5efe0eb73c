"""The hooks through which a feature (rooms, the boards of the day, reviews, the computer's turns…) takes part in
every game's life: the games' operations call each list in the order the parts registered, and name no feature.
A new feature registers listeners here; it does not edit the games' code path.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from app.core.game import Game, Refused
from app.core.languages import Text


@dataclass
class GameEnd:
    """A game that has just ended, by a player's move or the computer's."""

    game_id: str
    player: str  # who made the ending move (the computer's credential for its own)
    before: Game
    after: Game  # listeners before the save may still change it: it is saved as they leave it
    board: str | None = None  # the board id, for a one-player game that has one

    @property
    def one_player(self) -> bool:
        """A one-player game's end: its result and whatever ranks it follow (a game of seats is no result)."""
        return len(self.after.seats) == 1


# Why a feature refuses: its words, read in the language of whoever is refused.
Refusal = Text | None


@dataclass
class Hooks:
    # Why no game of a board may be made now (player, board id), by the feature whose boards players compete on.
    board_seals: list[Callable[[str, str], Refusal]] = field(default_factory=list)
    # Why a finished game's story may not be shown to a viewer now (game, viewer).
    replay_seals: list[Callable[[Game, str], Refusal]] = field(default_factory=list)
    # Why a game's shared replay may not be withdrawn (game id, game).
    share_keepers: list[Callable[[str, Game], Refusal]] = field(default_factory=list)
    # Why an aid (a hint, the bot, an overlay) is refused in this game (game, what is asked, in words marked with N_:
    # "hints", "bot"…).
    aid_refusals: list[Callable[[Game, str], Refusal]] = field(default_factory=list)
    # Why a change of settings is refused in this game (game, changes).
    setting_refusals: list[Callable[[Game, dict[str, bool]], Refusal]] = field(default_factory=list)
    # The game as shown to a viewer by a link (game id, game, viewer, the person asking by the link); a filter may
    # refuse (NotFound) what the link does not show.
    link_filters: list[Callable[[str, Game, str, str | None], Game]] = field(default_factory=list)
    # A game has ended, before it is saved: a listener may change it (its grade, its share key, its options).
    ending: list[Callable[[GameEnd], None]] = field(default_factory=list)
    # What a one-player game's result keeps beyond the game itself (its room's place…): (key, value) or None.
    result_parts: list[Callable[[Game, str], tuple[str, Any] | None]] = field(default_factory=list)
    # A one-player game has ended and is saved (its result, a ladder's entry).
    ended: list[Callable[[GameEnd], None]] = field(default_factory=list)
    # A player did something to a game others may want to hear of (an undo, a hint, a mode's own action).
    acted: list[Callable[[Game, str, str], None]] = field(default_factory=list)
    # A game was read or moved (game id, game): one whose turn is due (the computer's) is played on.
    seen: list[Callable[[str, Game], None]] = field(default_factory=list)
    # Why a player may not choose a name now (player, client address): a host's block of the address.
    name_refusals: list[Callable[[str, str], Refusal]] = field(default_factory=list)
    # Two players were just made one (source, target, what the store kept of the source before): a feature
    # tidies what the store cannot tell (a name's look the target no longer goes by).
    merged: list[Callable[[str, str, Any], None]] = field(default_factory=list)

    @staticmethod
    def first_refusal(checks: list[Callable[..., Refusal]], *args: Any) -> Refusal:
        for check in checks:
            refusal = check(*args)
            if refusal is not None:
                return refusal
        return None

    def check_aid(self, game: Game, what: str) -> None:
        """Refuse `what` (a hint, an overlay, the bot) where a feature plays the game without it (a race)."""
        refusal = self.first_refusal(self.aid_refusals, game, what)
        if refusal is not None:
            raise Refused(refusal)

    def check_settings(self, game: Game, changes: dict[str, bool]) -> None:
        """Refuse a change of a setting a feature fixes for the game (undo in a race)."""
        refusal = self.first_refusal(self.setting_refusals, game, changes)
        if refusal is not None:
            raise Refused(refusal)

    def shown_by_link(self, game_id: str, game: Game, viewer: str, asker: str | None) -> Game:
        for shown in self.link_filters:
            game = shown(game_id, game, viewer, asker)
        return game

    def game_ending(self, end: GameEnd) -> None:
        for listener in self.ending:
            listener(end)

    def game_ended(self, end: GameEnd) -> None:
        for listener in self.ended:
            listener(end)

    def game_acted(self, game: Game, player: str, what: str) -> None:
        for listener in self.acted:
            listener(game, player, what)

    def game_seen(self, game_id: str, game: Game) -> None:
        for listener in self.seen:
            listener(game_id, game)
