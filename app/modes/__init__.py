"""The game modes, by name, and the operations that pick the mode a game is played in.

Adding a mode is a module here with a `Mode` subclass and one line in MODES;
the service, the store and the web layer read modes only through this table.
"""

from __future__ import annotations

import random
from typing import Any

from app.core import stored
from app.core.game import BotChoice, Game, Hint, Invalid, Move, Outcome, Switches
from app.core.languages import lazy_gettext
from app.core.seats import Seat
from app.modes.base import Mode
from app.modes.classic import Classic, ClassicOptions
from app.modes.cruel import Cruel, CruelOptions
from app.modes.cruel_flags import CruelFlags
from app.modes.flags import Flags, FlagsOptions
from app.modes.help import Help
from solver import Analyzer

MODES: dict[str, Mode] = {mode.name: mode for mode in (Cruel(), Classic(), Help(), Flags(), CruelFlags())}
# What a new game is when nobody says: the first mode; and the mode a board id plays in unless it says.
DEFAULT_MODE = next(iter(MODES))
BOARD_MODE = next(name for name, mode in MODES.items() if mode.board_ids)


def get_mode(name: str) -> Mode:
    try:
        return MODES[name]
    except KeyError:
        raise Invalid(
            lazy_gettext("unknown mode %(name)s: expected one of %(names)s", name=repr(name), names=", ".join(MODES))
        ) from None


def variant_of(name: str, variant: str) -> str:
    """The mode `variant` names when it is `name` itself or one of its variants (Mode.variant_of); Invalid otherwise."""
    chosen = get_mode(variant)
    if chosen.name != get_mode(name).name and chosen.variant_of != name:
        raise Invalid(
            lazy_gettext(
                "%(variant)s is not a variant of %(mode)s",
                variant=lazy_gettext(chosen.title),
                mode=lazy_gettext(get_mode(name).title),
            )
        )
    return chosen.name


def new_game(
    width: int,
    height: int,
    mines: int,
    mode: str = "cruel",
    options: Switches | None = None,
    seats: list[Seat] | None = None,
    *,
    rng: random.Random,
    secret: bytes = b"",
) -> Game:
    """A new game; `rng` is where its secret comes from (a layout, a seed): the caller says, as deals decide games."""
    return get_mode(mode).new_game(width, height, mines, options, seats, rng=rng, secret=secret)


def apply_move(game: Game, move: Move, **turn: Any) -> tuple[Game, Outcome]:
    """Apply a move by the rules of the game's mode; `turn` is Mode.apply's rng, now, analyzer and limits."""
    after, outcome = get_mode(game.mode).apply(game, move, **turn)
    if move.bot:
        after.aided("bot")
    return after, outcome


def hint(game: Game, analyzer: Analyzer) -> Hint:
    return get_mode(game.mode).hint(game, analyzer)


def bot_choice(game: Game, analyzer: Analyzer, rng: random.Random) -> BotChoice:
    return get_mode(game.mode).bot_choice(game, analyzer, rng)


def game_from_json(data: dict[str, Any], history: list[dict[str, Any]]) -> Game:
    """A stored game back, every field checked (app.core.stored); anything malformed raises ValueError."""
    game = stored.read_state(data, MODES)
    game.history = stored.read_records(game, history, MODES)
    return game


__all__ = [
    "BOARD_MODE",
    "DEFAULT_MODE",
    "MODES",
    "Classic",
    "ClassicOptions",
    "Cruel",
    "CruelFlags",
    "CruelOptions",
    "Flags",
    "FlagsOptions",
    "Help",
    "Mode",
    "apply_move",
    "bot_choice",
    "game_from_json",
    "get_mode",
    "hint",
    "new_game",
    "variant_of",
]
