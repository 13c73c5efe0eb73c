"""The service's operations on rooms (app.rooms): make one, join it, start it, leave it, and what it shows.

A room's writes run on the runner as a game's do (one at a time per room in this process, the version check
across processes); its games are ordinary games, made and seated here for the room's kind. What a kind does
is the kind's (app/rooms/): nothing here names one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from app import modes
from app.core.errors import KaboomError
from app.core.game import Game, Invalid, Refused, board_size
from app.core.languages import N_, InSentence, lazy_gettext, lazy_ngettext
from app.core.names import NAME_TAKEN, checked_name, name_claim, name_key
from app.core.seats import Player, Seat, held_by, left_by, occupant, vacated, watcher
from app.rooms import MAX_PLAYERS, Member, Room, RoomGames, RoomKind, RoomNotFound, get_kind
from app.rooms.base import DEFAULT_NAME, RoomFull, Standing, new_invite
from app.service.context import Context
from app.service.hooks import Refusal
from app.service.runner import operation
from app.service.seats import SeatOperations
from app.store import Conflict, NotFound

# Times a write beside another operation (a note in the room's log during a move) tries before it gives up.
SIDE_WRITE_ATTEMPTS = 5
# The claim (Store.claim) of a board id its room's players compete on: the room, and the round it is sealed for.
SEALED_BOARD = "sealed-board:"
BOARD_CONTESTED = N_(
    "this board is being raced: no other game of it can be made until the race is over, "
    "so that nobody learns its mines from a practice copy"
)
REPLAY_CONTESTED = N_("this game's race is still on: its replay opens to others once the race is over")


def assists_refused(game: Game, what: str) -> Refusal:
    """Why `what` (a hint, an overlay, the bot) is refused in a game whose room is played without them (a race)."""
    if game.room is not None and not get_kind(game.room["kind"]).assists:
        return lazy_gettext(
            "no %(aid)s in a %(kind)s: everyone plays on what they can see",
            aid=InSentence(what),
            kind=InSentence(get_kind(game.room["kind"]).title),
        )
    return None


def settings_refused(game: Game, changes: dict[str, bool]) -> Refusal:
    """Why a change of a setting the game's room fixes is refused (undo in a race)."""
    if game.room is None:
        return None
    for setting, (value, why) in get_kind(game.room["kind"]).fixed_settings.items():
        if changes.get(setting, value) != value:
            return lazy_gettext(why)
    return None


class TooManyRooms(KaboomError):
    """A player in as many rooms as they may be, or a client address opening rooms too fast."""


@dataclass
class RoomView:
    """A room as one viewer sees it now."""

    room_id: str
    room: Room
    kind: RoomKind
    viewer: int | None  # the viewer's place among the members; None for whoever watches by the link
    present: frozenset[int]  # the colours of the members whose pages are open now
    game: str | None  # the game the viewer plays (or, by the link, watches) in the room now
    standings: list[Standing] = field(default_factory=list)
    over: bool = False  # the round has ended (a race: every racer cleared or lost)
    may_start: bool = False
    now: float = 0.0
    phase: str | None = None  # where the room's rounds stand (RoomKind.round)
    round: int | None = None
    opens_at: float | None = None
    # The room's version and each of its games' the view was drawn from: a live page waits for any to move.
    versions: dict[str, int] = field(default_factory=dict)

    @property
    def watching(self) -> bool:
        return self.viewer is None

    @property
    def signature(self) -> str:
        """What the page shows of the room, as its live poll compares it: the room's version, who is here,
        and each member's figures."""
        figures = ",".join(
            f"{row.member}.{row.opened}.{row.deaths}.{row.status}.{int(row.present)}.{row.game or ''}"
            for row in self.standings
        )
        return f"{self.room.version}|{figures}"


class ServiceGames(RoomGames):
    """The room kinds' hands on the store's games."""

    def __init__(self, context: Context):
        self.context = context
        self.store = context.store
        self.countdown = context.settings.race_countdown
        self.peeked: dict[str, int] = {}  # the games peeked at, and the versions they had

    def make(
        self,
        room: Room,
        room_id: str,
        seatings: list[list[str]],
        *,
        opens_at: float | None = None,
        sealed: str | None = None,
    ) -> list[str]:
        rules = modes.get_mode(room.mode)
        # Several games of one board must deal alike whatever their first clicks (a race's); one game
        # shared by all is an ordinary new game, its first click the opening it always is.
        make = rules.shared_board if len(seatings) > 1 else rules.new_game
        board = make(
            room.width,
            room.height,
            room.mines,
            rules.options(**room.settings),
            rng=self.context.deals.next(),
            secret=self.context.board_secret,
        )
        board_id = rules.board_id(board)
        if sealed is not None and board_id is not None:
            # Before any game of it exists: whoever finds the id finds it sealed (RoomOperations.race_seal).
            self.store.claim(SEALED_BOARD + board_id, f"{room_id}/{sealed}")
        made = []
        for players in seatings:
            game = board.copy()
            game.seats = [Player(player) for player in players]
            game.room = room_link(room, room_id, game.seats)
            game.opens_at = opens_at
            game.sealed = sealed is not None
            made.append(self.store.create(game, self.context.settings.games_per_player))
        return made

    def seat(self, room: Room, game_id: str, player: str) -> None:
        def seated(game: Game) -> Game | None:
            if held_by(game.seats, player):
                return None
            left = [number for number, seat in enumerate(game.seats) if left_by(seat) is not None]
            theirs = next((number for number in left if left_by(game.seats[number]) == player), None)
            new = game.copy()
            number = theirs if theirs is not None else left[0] if left else None
            if number is None:
                new.seats.append(Player(player))
            else:
                new.seats[number] = Player(player)
                if theirs is None:
                    new.views.pop(number, None)  # another member's own settings go with them
            return new

        self._reseated(room, game_id, seated)

    def vacate(self, room: Room, game_id: str, player: str) -> None:
        def vacated_by(game: Game) -> Game | None:
            held = held_by(game.seats, player)
            if not held:
                return None
            new = game.copy()
            for number in held:
                new.seats[number] = vacated(player)
            return new

        self._reseated(room, game_id, vacated_by)

    def _reseated(self, room: Room, game_id: str, change: Callable[[Game], Game | None]) -> None:
        """The game's seats changed as `change` says (None: nothing to change), its room link with them; a write
        beside the room's own, tried again over a move made meanwhile."""
        link = watcher(room.invite)
        for _ in range(SIDE_WRITE_ATTEMPTS):
            game = self.store.load(game_id, link)
            new = change(game)
            if new is None:
                return
            new.room = room_link(room, game.room["id"] if game.room else "", new.seats, game.room)
            new.version += 1
            try:
                self.store.save(game_id, link, new, game.version)
            except Conflict:
                continue
            self.context.forget(game_id)
            return
        raise Conflict(game_id)

    def peek(self, game_ids: list[str]) -> dict[str, Game | None]:
        games = self.store.peek(game_ids)
        self.peeked.update({game_id: game.version if game is not None else -1 for game_id, game in games.items()})
        return games


def room_link(room: Room, room_id: str, seats: Sequence[Seat], before: dict[str, str] | None = None) -> dict[str, str]:
    """What a game of the room knows of it (Game.room): its id and kind, its link's key, and each seat's colour
    (a seat its member left keeps the colour its moves were made in, as `before` has it)."""
    colours = {member.player: member.colour for member in room.members}
    kept = (before or {}).get("colours", "")
    shades = []
    for number, seat in enumerate(seats):
        player = occupant(seat)
        if player in colours:
            shades.append(str(colours[player]))
        else:
            shades.append(kept[number] if number < len(kept) else "0")
    return {"id": room_id, "kind": room.kind, "invite": room.invite, "colours": "".join(shades)}


class RoomOperations:
    """A room's operations, and what rooms do to every game: a race's boards sealed, its assists and settings
    fixed, a room's games shown by its link as the room allows, a racer's place kept in the result, and what a
    member did to a game noted in the room's log."""

    def __init__(self, context: Context, seats: SeatOperations):
        self.context = context
        self.seats = seats
        self.store = context.store
        self.settings = context.settings
        self.runner = context.runner
        self.clock = context.clock
        hooks = context.hooks
        hooks.board_seals.append(self.race_seal)
        hooks.replay_seals.append(self.race_replay_seal)
        hooks.aid_refusals.append(assists_refused)
        hooks.setting_refusals.append(settings_refused)
        hooks.link_filters.append(self.shown_by_link)
        hooks.result_parts.append(self.place_in_room)
        hooks.acted.append(self.note_in_room)

    async def create_room(
        self,
        player: str,
        client: str,
        kind: str,
        mode: str,
        width: int | None,
        height: int | None,
        mines: int | None,
        settings: dict[str, bool],
        name: str,
        colour: int | None = None,
    ) -> tuple[str, Room]:
        """A new room of `kind` playing `mode` on a board of this size, made by `player` (called `name`),
        alone in it until others join by its link. Invalid for a bad kind, mode, size, setting or name;
        TooManyRooms past the player's rooms or the client's pace."""
        rooms = get_kind(kind)
        rules = modes.get_mode(mode)
        if rules.seat_count != 1:
            raise Invalid(
                lazy_gettext(
                    "rooms play one-player modes; %(title)s games have seats of their own",
                    title=lazy_gettext(rules.title),
                )
            )
        if width is None or height is None or mines is None:
            raise Invalid(lazy_gettext("width, height and mines are required"))
        width, height, mines = board_size(width, height, mines)
        asked = {**(rules.even_settings if rooms.even else {}), **settings}
        for setting, (value, why) in rooms.fixed_settings.items():
            if setting in rules.options_class.names():
                if asked.get(setting, value) != value:
                    raise Invalid(lazy_gettext(why))
                asked[setting] = value
        options = rules.options(**asked)  # refuses an unknown setting, naming it
        helping = [name for name in options.helping() if getattr(options, name)]
        if helping and not rooms.assists:
            raise Invalid(
                lazy_gettext(
                    "a %(kind)s is played without %(setting)s",
                    kind=InSentence(rooms.title),
                    setting=InSentence(options.label(helping[0])),
                )
            )
        if name:
            checked_name(name)
        room = Room(kind, mode, width, height, mines, asked, new_invite(), [], rooms.new_state())
        return await self.context.offload(self._create_room, room, player, client, name, colour)

    def _create_room(self, room: Room, player: str, client: str, name: str, colour: int | None) -> tuple[str, Room]:
        # The limits first: a flooding client's refusals cost a read and a counter, not a look at its rooms.
        self._check_room_places(player)
        limit, window = self.settings.room_limit, self.settings.create_window
        if not self.store.allow(f"room:{client}", limit, window):
            raise TooManyRooms(
                lazy_gettext(
                    "Too many new rooms from your address: at most %(limit)s every %(window)s seconds. Wait a little.",
                    limit=limit,
                    window=format(window, "g"),
                )
            )
        kept_name, kept_colour = self._kept_name(player)
        colour = colour if colour is not None else kept_colour
        shade = colour if colour is not None and 0 <= colour < MAX_PLAYERS else 0
        room.members = [Member(player, self._member_name(room, player, name or kept_name), shade)]
        room.created_at = self.clock()
        room_id = self.store.create_room(room)
        made = room.copy()
        try:
            get_kind(room.kind).made(made, room_id, ServiceGames(self.context), self.clock())
        except BaseException:
            self.store.delete_room(room_id)
            raise
        if made.state != room.state:
            made.version += 1
            self.store.save_room(room_id, made, room.version)
        return room_id, made

    def _member_name(self, room: Room, player: str, name: str) -> str:
        """The name `player` goes by among the room's members, as the rules of names have it (app.core.names): none
        that looks like another member's, nor like a name another player goes by on the ladders. The name every
        newcomer is offered (DEFAULT_NAME) is numbered instead ("Player 2")."""
        name = checked_name(name)
        others = {name_key(member.name) for member in room.members if member.player != player}
        if name == DEFAULT_NAME:
            name = next(
                numbered
                for numbered in (DEFAULT_NAME, *(f"{DEFAULT_NAME} {n}" for n in range(2, MAX_PLAYERS + 2)))
                if name_key(numbered) not in others
            )
        if name_key(name) in others:
            raise Refused(
                lazy_gettext(
                    "a member of this room goes by a name that looks like %(name)s: choose another", name=repr(name)
                )
            )
        if self.store.claimed(name_claim(name)) not in (None, player):
            raise Refused(lazy_gettext(NAME_TAKEN))
        return name

    def _check_room_places(self, player: str) -> None:
        limit = self.settings.rooms_per_player
        if len(self.store.rooms_of(player)) >= limit:
            raise TooManyRooms(
                lazy_ngettext(
                    "You are in %(num)s room already, as many as a player may be in: leave one first.",
                    "You are in %(num)s rooms already, as many as a player may be in: leave one first.",
                    limit,
                )
            )

    async def join_room(self, room_id: str, key: str, player: str, name: str, colour: int | None = None) -> Room:
        """Join the room whose link holds `key`, as `name`; the room as it is then. A member who joins again
        keeps their place. RoomNotFound for a wrong key, RoomFull past MAX_PLAYERS."""
        return await self.runner.run("room-join", room_id, key, player, name, colour)

    @operation("room-join")
    def _join_room(self, room_id: str, key: str, player: str, name: str, colour: int | None) -> Room:
        room = self._room(room_id, watcher(key))
        if room.seat_of(player) is not None:
            return room
        if len(room.members) >= MAX_PLAYERS:
            raise RoomFull(
                lazy_ngettext(
                    "the room is full: %(num)s player at most; you may still watch",
                    "the room is full: %(num)s players at most; you may still watch",
                    MAX_PLAYERS,
                )
            )
        name = self._member_name(room, player, name)
        self._check_room_places(player)
        joined = room.copy()
        joined.members.append(Member(player, name, joined.free_colour(colour)))
        now = self.clock()
        get_kind(room.kind).joined(joined, room_id, player, ServiceGames(self.context), now)
        return self._noted(room_id, room, joined, player, "joined")

    async def leave_room(self, room_id: str, player: str) -> None:
        """Leave a room: its games stay as they were played; the last member to leave takes the room away."""
        await self.runner.run("room-leave", room_id, player)

    @operation("room-leave")
    def _leave_room(self, room_id: str, player: str) -> None:
        room = self._room(room_id, player)
        if len(room.members) == 1:
            self.store.delete_room(room_id)
            return
        left = room.copy()
        left.note(player, "left", self.clock())
        left.members = [member for member in room.members if member.player != player]
        get_kind(room.kind).left(left, room_id, player, ServiceGames(self.context), self.clock())
        self._noted(room_id, room, left)

    async def start_room(self, room_id: str, player: str) -> Room:
        """Start the room (a race from its lobby, or a rematch), as its kind allows."""
        return await self.runner.run("room-start", room_id, player)

    @operation("room-start")
    def _start_room(self, room_id: str, player: str) -> Room:
        room = self._room(room_id, player)
        started = room.copy()
        now = self.clock()
        get_kind(room.kind).start(started, room_id, player, ServiceGames(self.context), now)
        return self._noted(room_id, room, started, player, "started")

    def _noted(self, room_id: str, before: Room, after: Room, player: str = "", what: str = "") -> Room:
        """Save the room as changed from `before` (over its version), with what `player` did in its log."""
        if what:
            after.note(player, what, self.clock())
        after.version = before.version + 1
        self.store.save_room(room_id, after, before.version)
        return after

    async def room_view(self, room_id: str, viewer: str, player: str | None = None) -> RoomView:
        """The room as `viewer` (a member, or whoever holds its link) sees it now; a member's look marks them
        present. `player`, the person asking by the link, is shown the room as the member they are, if they
        are one: a racer may not see by the link what the race hides from them. RoomNotFound for anyone
        else, as for a room that does not exist."""
        return await self.context.offload(self._room_view, room_id, viewer, player, limiter=self.context.live_limiter)

    def _room_view(self, room_id: str, viewer: str, player: str | None = None) -> RoomView:
        room = self._room(room_id, viewer)
        if player is not None and room.seat_of(player) is not None:
            viewer = player
        number = room.seat_of(viewer)
        if number is not None:
            self.context.mark_present(room_id, room.members[number].colour)
        present = frozenset(self.store.present(room_id))
        kind = get_kind(room.kind)
        now = self.clock()
        games = ServiceGames(self.context)
        standings, over = kind.standings(room, viewer, present, games, now)
        return RoomView(
            room_id,
            room,
            kind,
            number,
            present,
            kind.game_for(room, viewer),
            standings,
            over,
            kind.may_start(room, viewer, over, standings),
            now,
            *kind.round(room),
            versions={room_id: room.version, **games.peeked},
        )

    async def live_with_room(
        self, game_id: str, viewer: str, player: str | None = None
    ) -> tuple[int, frozenset[int], RoomView | None]:
        """The game's live state (SeatOperations.live), and its room as the viewer sees it (None outside a room, or
        once the room is gone): a page of a room's game follows the room too. `player`: who asks by a link."""
        game, version, present = await self.seats.looked_at_live(game_id, viewer, player)
        if game.room is None:
            return version, present, None
        try:
            return version, present, await self.room_view(game.room["id"], viewer, player)
        except RoomNotFound:
            return version, present, None

    async def rooms_of(self, player: str) -> list[tuple[str, Room]]:
        """The rooms `player` is a member of, the most recently active first (one that does not read is
        left out: its games still list)."""
        return await self.context.offload(self._rooms_of, player, limiter=self.context.live_limiter)

    def _rooms_of(self, player: str) -> list[tuple[str, Room]]:
        rooms = []
        for room_id in self.store.rooms_of(player):
            try:
                rooms.append((room_id, self.store.load_room(room_id)))
            except KaboomError:
                continue
        return rooms

    def shown_by_link(self, game_id: str, game: Game, viewer: str, asker: str | None) -> Game:
        """`game`, unless `viewer` is its room's link and the room does not show that game to whoever holds
        the link now (NotFound): a race's boards while it is on, but to a racer whose own board can change
        no more. `asker`, whose cookie asks by the link, is seen as the member they are."""
        if game.room is None or viewer != watcher(game.room["invite"]):
            return game
        try:
            room = self.store.load_room(game.room["id"])
        except NotFound:
            return game  # the room is gone with its players: its games are theirs alone now
        kind = get_kind(room.kind)
        looker = asker if asker is not None and room.seat_of(asker) is not None else viewer
        if kind.game_for(room, looker) == game_id:
            return game
        standings, _ = kind.standings(room, looker, frozenset(), ServiceGames(self.context), self.clock())
        if not any(row.game == game_id for row in standings):
            raise NotFound(game_id)
        return game

    def race_seal(self, player: str, board_id: str) -> Refusal:
        """Why no game of `board_id` may be made now (a room's players compete on it); None when it may."""
        sealed = self.store.claimed(SEALED_BOARD + board_id)
        if sealed is None:
            return None
        room_id, _, round_ = sealed.rpartition("/")
        try:
            room = self.store.load_room(room_id)
        except KaboomError:
            return None  # the room is gone, with its race
        if get_kind(room.kind).contested(room, ServiceGames(self.context), self.clock()) != round_:
            return None
        return lazy_gettext(BOARD_CONTESTED)

    def race_replay_seal(self, game: Game, viewer: str) -> Refusal:
        """Why a finished game of a room's board may not be replayed by `viewer` now (its room's round is still
        contested: any board of it would tell a racer their own); None when it may."""
        if not game.sealed or game.room is None:
            return None
        try:
            room = self.store.load_room(game.room["id"])
        except KaboomError:
            return None
        if get_kind(room.kind).contested(room, ServiceGames(self.context), self.clock()) is None:
            return None
        return lazy_gettext(REPLAY_CONTESTED)

    async def kept_name(self, player: str) -> tuple[str, int | None]:
        """The name and colour the player went by in their latest room: what a new room offers them (the
        cookie holds an id only)."""
        return await self.context.offload(self._kept_name, player, limiter=self.context.live_limiter)

    def _kept_name(self, player: str) -> tuple[str, int | None]:
        for room_id in self.store.rooms_of(player)[:3]:
            try:
                member = self.store.load_room(room_id).member(player)
            except KaboomError:
                continue
            if member is not None:
                try:
                    return checked_name(member.name), member.colour
                except Invalid:
                    return DEFAULT_NAME, member.colour  # kept before today's rules of names
        return DEFAULT_NAME, None

    def _room(self, room_id: str, viewer: str) -> Room:
        try:
            room = self.store.load_room(room_id)
        except NotFound:
            raise RoomNotFound(room_id) from None
        if not room.admits(viewer):
            raise RoomNotFound(room_id)
        return room

    def place_in_room(self, game: Game, player: str) -> tuple[str, dict[str, Any]] | None:
        """What the player's result keeps of the game's room (a race's rank), as it stands now that their
        game ended, under the result's key "room"; None for a game outside a room, or one whose room is gone."""
        if game.room is None:
            return None
        try:
            room = self.store.load_room(game.room["id"])
        except KaboomError:
            return None
        if room.seat_of(player) is None:
            return None
        place = get_kind(room.kind).place(room, player, ServiceGames(self.context), self.clock())
        return ("room", place) if place is not None else None

    def note_in_room(self, game: Game, player: str, what: str) -> None:
        """Note in the log of the game's room (if it has one) that `player` did `what` to the game: the
        others' pages say who took a move back or asked for a hint. Beside the game's own write, and never
        its undoing: a log that cannot be written is left as it was."""
        if game.room is None:
            return
        room_id = game.room["id"]
        for _ in range(SIDE_WRITE_ATTEMPTS):
            try:
                room = self.store.load_room(room_id)
            except KaboomError:
                return
            noted = room.copy()
            noted.note(player, what, self.clock())
            if noted.log == room.log:
                return
            noted.version += 1
            try:
                self.store.save_room(room_id, noted, room.version)
                return
            except Conflict:
                continue
