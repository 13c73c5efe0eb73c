"""What the host does to keep a public server civil (kaboom admin, on the server's machine; no web page does it):
list the names chosen last, rename or blank one, take an entry off a ladder, close a room, and keep an address
from naming itself. Every action is a line of the audit log, in the store, which names players by their name and
a tag the host's key makes of their id, never by the id itself (it opens their games).

Players are found by what the host sees on the pages: a name (any name that looks the same finds its player),
or on a ladder the anonymous tag of a player without one."""

from __future__ import annotations

import datetime
import getpass
import hashlib
import hmac
import json
import socket
from dataclasses import dataclass
from typing import Any

from app.core.addresses import address_key
from app.core.errors import KaboomError
from app.core.languages import lazy_gettext
from app.core.names import checked_name, name_claim
from app.results.daily import anonymous_name, board_named
from app.service.context import Context
from app.service.daily import DailyOperations
from app.service.hooks import Refusal
from app.store import NotFound

# How far down a ladder an entry is looked for by the name it shows: far beyond any day's players.
LADDER_SEARCHED = 1_000_000
# The claim that keeps an address from choosing names: its key, after the address's own (app.core.addresses).
NAME_BLOCK = "name-block:"


class NoSuchThing(KaboomError):
    """What the host named is not there: nothing was done."""


@dataclass(frozen=True)
class NamedPlayer:
    name: str
    chosen_at: float  # when the name was chosen (the store's clock; 0 for a name kept before that was)
    tag: str  # the host's tag of the player (the audit log's)


class ModerationOperations:
    def __init__(self, context: Context, daily: DailyOperations):
        self.context = context
        self.store = context.store
        self.daily = daily
        context.hooks.name_refusals.append(self._blocked)

    def tag(self, player: str) -> str:
        """A player as the audit log names them: the same tag for the same player, and no way back to their id."""
        return hmac.new(self.context.board_secret, f"kaboom audit|{player}".encode(), hashlib.sha256).hexdigest()[:16]

    def _audit(self, action: str, reason: str, **what: Any) -> dict[str, Any]:
        moment = datetime.datetime.fromtimestamp(self.context.clock(), datetime.UTC).isoformat(timespec="seconds")
        line = {"at": moment, "by": f"{getpass.getuser()}@{socket.gethostname()}", "action": action, **what}
        if reason:
            line["reason"] = reason
        self.store.write_audit(json.dumps(line, ensure_ascii=False))
        return line

    def recent_names(self, limit: int) -> list[NamedPlayer]:
        return [NamedPlayer(name, at, self.tag(player)) for player, name, at in self.store.recent_names(limit)]

    def _named(self, name: str) -> tuple[str, str]:
        """The player who goes by `name` (or a name that looks like it), and the name as they chose it."""
        player = self.store.claimed(name_claim(name))
        chosen = self.store.names_of([player]).get(player) if player is not None else None
        if player is None or chosen is None:
            raise NoSuchThing(f"no player goes by the name {name!r}")
        return player, chosen

    def rename(self, name: str, new_name: str, reason: str = "") -> dict[str, Any]:
        """Give the player who goes by `name` the name `new_name` instead (checked as a player's own)."""
        player, before = self._named(name)
        after = self.daily.keep_name(player, checked_name(new_name))
        return self._audit("rename", reason, player=self.tag(player), name=before, new_name=after)

    def blank(self, name: str, reason: str = "") -> dict[str, Any]:
        """Take the name away: its player is anonymous again, and its look free for others."""
        player, before = self._named(name)
        self.store.drop_name(player)
        self.store.release(name_claim(before), player)
        return self._audit("blank", reason, player=self.tag(player), name=before)

    def remove_entry(self, day: str, mode: str, shown: str, reason: str = "") -> dict[str, Any]:
        """Take off a day's ladder the entry shown there as `shown` (a name, or an anonymous tag): the ladder shows
        wins to everyone (a loss only to its own player, so never a name to anyone else)."""
        board = board_named(f"{day}/{mode}", self.daily.today())
        for row in self.store.ladder(board.key, LADDER_SEARCHED).top:
            named = self.store.names_of([row.player]).get(row.player)
            if shown in (named, anonymous_name(row.player, self.context.board_secret)):
                self.store.drop_ladder_entry(board.key, row.player)
                return self._audit("remove-entry", reason, player=self.tag(row.player), ladder=board.key, name=shown)
        raise NoSuchThing(f"nobody shown as {shown!r} has an entry on the ladder of {board.key}")

    def close_room(self, room_id: str, reason: str = "") -> dict[str, Any]:
        """Take a room away (its games stay, each its players'); its pages say it is gone."""
        try:
            room = self.store.load_room(room_id)
        except NotFound:
            raise NoSuchThing(f"no room {room_id!r}") from None
        self.store.delete_room(room_id)
        return self._audit("close-room", reason, room=room_id, kind=room.kind, members=len(room.members))

    def block(self, address: str, reason: str = "") -> dict[str, Any]:
        """Keep an address (an IPv6 one's /64) from choosing a name, until unblocked."""
        key = address_key(address)
        self.store.claim(NAME_BLOCK + key, "blocked")
        return self._audit("block", reason, address=key)

    def unblock(self, address: str, reason: str = "") -> dict[str, Any]:
        key = address_key(address)
        if self.store.claimed(NAME_BLOCK + key) is None:
            raise NoSuchThing(f"the address {key} is not blocked")
        self.store.release(NAME_BLOCK + key, "blocked")
        return self._audit("unblock", reason, address=key)

    def audit_log(self, limit: int) -> list[dict[str, Any]]:
        lines = []
        for text in self.store.audit_log(limit):
            try:
                lines.append(json.loads(text))
            except ValueError:
                lines.append({"unreadable": text})
        return lines

    def _blocked(self, player: str, client: str) -> Refusal:
        if self.store.claimed(NAME_BLOCK + client) is not None:
            return lazy_gettext("names cannot be chosen from your address on this server")
        return None
