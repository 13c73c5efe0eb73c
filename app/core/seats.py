"""Who sits at a game's seats: a player, an invitation (open or taken), the computer at its level.

A mode with seats says whose turn it is; what a seat is, who holds it, who may join by a link, who only
watches and who counts as present is the same in every mode, and lives here. The store knows none of
this: it keeps each game's credentials (`credentials`), the strings that may open it — a player's id, an
invitation link's key, the computer's — and lets in whoever presents one.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

# Whoever holds an invitation's link opens the game with this credential; player ids are URL-safe
# tokens, never with a colon, so no player can be taken for a link.
_LINK = "link:"
# Whoever holds a finished game's shared replay link opens the game with this one: to see its replay only.
_REPLAY = "replay:"
# A seat whose player left the room the game is played in: it keeps the moves made from it (whose move each
# was) and opens the game to nobody, so its player no longer moves; coming back, they take it again.
_LEFT = "left:"


@dataclass(frozen=True)
class Player:
    """A person, by the id their cookie holds. On one screen one person holds every seat."""

    id: str


@dataclass(frozen=True)
class Invitation:
    """A seat offered by a link: whoever holds `key` watches the game, and the first who asks takes the seat."""

    key: str
    player: str | None = None  # who took it; None while it is open

    @property
    def open(self) -> bool:
        return self.player is None


@dataclass(frozen=True)
class Computer:
    """The computer plays this seat, at `level` (one of the mode's levels)."""

    level: str


Seat = Player | Invitation | Computer
# The credential the computer opens its games with: a word no cookie can hold (ids are signed tokens).
COMPUTER = "computer"
# Who fills a game's other seats, as the new-game form and the API name it: the same player on one
# screen, whoever takes an invitation's link, or the computer.
OPPONENTS = ("screen", "invite", "computer")


def occupant(seat: Seat) -> str | None:
    """The player who plays `seat`; None for the computer and an open invitation."""
    if isinstance(seat, Player):
        return seat.id
    if isinstance(seat, Invitation):
        return seat.player
    return None


def held_by(seats: Sequence[Seat], player: str) -> frozenset[int]:
    """The seats `player` plays (every seat on one screen; none for whoever watches)."""
    return frozenset(number for number, seat in enumerate(seats) if occupant(seat) == player)


def watcher(key: str) -> str:
    """The credential of whoever holds an invitation's link: it opens the game to watch (and to take the seat)."""
    return _LINK + key


def vacated(player: str) -> Player:
    """The seat `player` held, once they left the game's room."""
    return Player(_LEFT + player)


def left_by(seat: Seat) -> str | None:
    """The player who left `seat` (see `vacated`); None for a seat anyone holds, or that is no player's."""
    return seat.id[len(_LEFT) :] if isinstance(seat, Player) and seat.id.startswith(_LEFT) else None


def people(seats: Sequence[Seat]) -> set[str]:
    """Every player a game's seats name: who plays a seat or took its invitation, and who left a seat for now."""
    named = (left_by(seat) or occupant(seat) for seat in seats)
    return {player for player in named if player is not None}


def recast(seats: Sequence[Seat], source: str, target: str) -> list[Seat]:
    """The seats with every one of `source`'s held by `target` instead: two players made one, or a deleted
    player's seat kept by a stand-in so that the others' game goes on."""
    changed: list[Seat] = []
    for seat in seats:
        if isinstance(seat, Player) and seat.id == source:
            seat = Player(target)
        elif isinstance(seat, Player) and left_by(seat) == source:
            seat = vacated(target)
        elif isinstance(seat, Invitation) and seat.player == source:
            seat = Invitation(seat.key, target)
        changed.append(seat)
    return changed


def replay_watcher(key: str) -> str:
    """The credential of whoever holds a shared replay's link: it opens a finished game's replay, nothing else."""
    return _REPLAY + key


def new_share_key() -> str:
    """A replay link's key: as hard to guess as a game id, and a new one for every share."""
    return secrets.token_urlsafe(16)


def invitation(seats: Sequence[Seat]) -> int | None:
    """The seat a link offers, open or taken; None in a game without one."""
    return next((number for number, seat in enumerate(seats) if isinstance(seat, Invitation)), None)


def open_seat(seats: Sequence[Seat]) -> int | None:
    """The seat an invitation offers and nobody has taken yet."""
    number = invitation(seats)
    return number if number is not None and seats[number].open else None  # type: ignore[union-attr]


def link_key(seats: Sequence[Seat]) -> str | None:
    number = invitation(seats)
    return seats[number].key if number is not None else None  # type: ignore[union-attr]


def computers(seats: Sequence[Seat]) -> frozenset[int]:
    """The seats the computer plays: always there."""
    return frozenset(number for number, seat in enumerate(seats) if isinstance(seat, Computer))


def credentials(seats: Sequence[Seat]) -> list[str]:
    """What opens the game in the store, one per seat in order, then the players who took invitations:
    the order the stores have always kept (the maker first: their list owns the game)."""
    own = [
        seat.id if isinstance(seat, Player) else watcher(seat.key) if isinstance(seat, Invitation) else COMPUTER
        for seat in seats
    ]
    takers = [seat.player for seat in seats if isinstance(seat, Invitation) and seat.player is not None]
    return own + takers


def new_invitation() -> Invitation:
    return Invitation(secrets.token_urlsafe(16))


def opponent_of(seats: Sequence[Seat]) -> tuple[str, str | None]:
    """How a game's other seats were filled, as a new game is asked for: (opponent, level)."""
    if computers(seats):
        seat = seats[min(computers(seats))]
        return "computer", seat.level  # type: ignore[union-attr]
    if invitation(seats) is not None:
        return "invite", None
    return "screen", None


# ----- stored ---------------------------------------------------------------------------------


def to_json(seats: Sequence[Seat]) -> list[dict[str, str]]:
    stored = []
    for seat in seats:
        if isinstance(seat, Player):
            stored.append({"player": seat.id})
        elif isinstance(seat, Invitation):
            stored.append({"invitation": seat.key, **({"player": seat.player} if seat.player is not None else {})})
        else:
            stored.append({"computer": seat.level})
    return stored


def from_json(stored: Any) -> list[Seat]:
    """Seats as `to_json` writes them; ValueError naming what is wrong otherwise."""
    if not isinstance(stored, list):
        raise ValueError(f"seats: a list of seats, not {stored!r:.60}")
    seats: list[Seat] = []
    for number, seat in enumerate(stored):
        if not isinstance(seat, dict) or not all(isinstance(value, str) and value for value in seat.values()):
            raise ValueError(f"seats.{number}: a seat is an object of non-empty strings, not {seat!r:.60}")
        if seat.keys() == {"player"}:
            seats.append(Player(seat["player"]))
        elif seat.keys() in ({"invitation"}, {"invitation", "player"}):
            seats.append(Invitation(seat["invitation"], seat.get("player")))
        elif seat.keys() == {"computer"}:
            seats.append(Computer(seat["computer"]))
        else:
            raise ValueError(f"seats.{number}: a player, an invitation or the computer, not {seat!r:.60}")
    return seats


def from_credentials(stored: Sequence[str], level: str | None) -> list[Seat]:
    """Seats as releases before typed seats stored them, as their credentials: the maker, then a second
    seat that was the same player (one screen), the computer (its level kept in the game's state), or a
    link's key, whose taker, once someone took it, came third."""
    seats: list[Seat] = []
    for credential in stored[:2]:
        if credential == COMPUTER:
            if level is None:
                raise ValueError("seats: the computer plays a seat, and the game's state names no level")
            seats.append(Computer(level))
        elif credential.startswith(_LINK):
            seats.append(Invitation(credential[len(_LINK) :], stored[2] if len(stored) > 2 else None))
        else:
            seats.append(Player(credential))
    return seats
