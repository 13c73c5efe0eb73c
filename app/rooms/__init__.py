"""The kinds of room, by name, and how a room is stored: adding a kind is a module here and a line in KINDS;
the service, the store and the web layer read kinds only through this table."""

from __future__ import annotations

from app.core.game import Invalid
from app.core.languages import lazy_gettext
from app.rooms import base
from app.rooms.base import MAX_PLAYERS, Member, Room, RoomGames, RoomKind, RoomNotFound
from app.rooms.coop import Coop
from app.rooms.race import Race

KINDS: dict[str, RoomKind] = {kind.name: kind for kind in (Coop(), Race())}


def get_kind(name: str) -> RoomKind:
    try:
        return KINDS[name]
    except KeyError:
        raise Invalid(
            lazy_gettext(
                "unknown kind of room %(name)s: expected one of %(kinds)s", name=repr(name), kinds=", ".join(KINDS)
            )
        ) from None


def encode_room(room: Room) -> str:
    """The room as a store keeps it, if it reads back (ValueError otherwise)."""
    return base.encode(room, KINDS)


def decode_room(text: str | bytes) -> Room:
    """A stored room, every field checked (ValueError naming the first that is wrong)."""
    return base.decode(text, KINDS)


def recast_room(room: Room, source: str, target: str, forget: bool) -> None:
    """Room.recast with the kinds of room this server has."""
    room.recast(source, target, KINDS, forget=forget)


__all__ = [
    "KINDS",
    "MAX_PLAYERS",
    "Member",
    "Room",
    "RoomGames",
    "RoomKind",
    "RoomNotFound",
    "decode_room",
    "encode_room",
    "get_kind",
    "recast_room",
]
