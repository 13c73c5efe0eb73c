"""The JSON API, for scripts and bots: the same service operations as the pages."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from app.core.game import Move
from app.core.seats import watcher
from app.service import GameService
from app.service.rooms import RoomView
from app.web.deps import Client, Player, Service
from app.web.schemas.base import ERROR_RESPONSES, ErrorOut
from app.web.schemas.daily import DailyOut, LadderOut, NameIn, NameOut, daily_out, ladder_out
from app.web.schemas.games import (
    AnalysisOut,
    BotOut,
    GameListOut,
    GameOut,
    HintOut,
    MoveIn,
    NewGameIn,
    OptionsIn,
    ProbabilitiesOut,
    game_out,
)
from app.web.schemas.records import RecordOut
from app.web.schemas.reviews import ReviewOut, ShareOut, review_out
from app.web.schemas.rooms import JoinRoomIn, NewRoomIn, RoomOut, room_out

router = APIRouter(prefix="/api/games", tags=["games"], responses=ERROR_RESPONSES)
rooms_router = APIRouter(prefix="/api/rooms", tags=["rooms"], responses=ERROR_RESPONSES)
records_router = APIRouter(prefix="/api/records", tags=["records"], responses=ERROR_RESPONSES)
daily_router = APIRouter(prefix="/api/daily", tags=["boards of the day"], responses=ERROR_RESPONSES)
names_router = APIRouter(prefix="/api/name", tags=["boards of the day"], responses=ERROR_RESPONSES)
# What every route that starts a game answers.
CREATES_A_GAME: dict = {
    "status_code": 201,
    "response_model": GameOut,
    "responses": {429: {"model": ErrorOut, "description": "too many new games from this address"}},
}


@router.post("", **CREATES_A_GAME)
async def new_game(body: NewGameIn, player: Player, client: Client, service: Service) -> JSONResponse:
    """Start a game; the player cookie that comes back holds its first seat."""
    game_id, game = await service.games.create(
        player,
        client,
        body.mode,
        body.width,
        body.height,
        body.mines,
        body.settings(),
        body.board_id,
        **body.seating(),
    )
    return JSONResponse(game_out(game_id, game, service.clock()), status_code=201)


@router.post("/{game_id}/restart", **CREATES_A_GAME)
async def restart(game_id: str, player: Player, client: Client, service: Service) -> JSONResponse:
    """The same board again, as a new game (fixed layouts, once the first click has dealt the board)."""
    new_id, game = await service.games.restart(game_id, player, client)
    return JSONResponse(game_out(new_id, game, service.clock()), status_code=201)


@router.get("", response_model=list[GameListOut])
async def list_games(player: Player, service: Service) -> list[GameListOut]:
    """The player's games, the most recently played first; a damaged one has only its id and `"damaged": true`."""
    now = service.clock()
    return [GameListOut.of(listing, now) for listing in await service.games.games_of(player)]


@records_router.get("", response_model=list[RecordOut])
async def records(player: Player, service: Service) -> list[RecordOut]:
    """The player's records per mode and size: games, wins, win rate, streaks, the ten best times with their
    3BV per second. Each game counts once, as it first ended (a loss taken back with undo stays a loss), and
    each board once: only the first of the player's games of a board id to end, won or lost; once its layout
    was shown, any other game of that board is left out (no game, no win, no time)."""
    return [RecordOut.of(record) for record in (await service.games.records(player)).records]


@router.delete("/{game_id}", status_code=204)
async def delete_game(game_id: str, player: Player, service: Service) -> Response:
    """Delete one of the player's games, with its history, for everyone: the game's maker only. Anyone else
    who holds a seat leaves the game: it goes from their list, and their seat stays as played."""
    await service.games.delete(game_id, player)
    return Response(status_code=204)


@router.get("/{game_id}", response_model=GameOut)
async def read_game(game_id: str, player: Player, service: Service) -> JSONResponse:
    return JSONResponse(game_out(game_id, await service.games.load(game_id, player), service.clock()))


@router.post("/{game_id}/moves", response_model=GameOut)
async def move(game_id: str, body: MoveIn, player: Player, client: Client, service: Service) -> JSONResponse:
    """Reveal, flag (cycles flag, ?, none unless `mark` is given), chord or undo. x and y count from 0."""
    result = await service.games.move(game_id, player, Move(body.action, body.x, body.y, body.mark), client)
    return JSONResponse(game_out(game_id, result.after, service.clock()))


@router.patch("/{game_id}/options", response_model=GameOut)
async def change_options(game_id: str, body: OptionsIn, player: Player, service: Service) -> JSONResponse:
    """Change settings: allow guessing anywhere, debug overlay, safe mode, countdown, undo."""
    return JSONResponse(
        game_out(game_id, await service.games.set_options(game_id, player, body.changes()), service.clock())
    )


@router.get("/{game_id}/analysis", response_model=AnalysisOut)
async def analysis(game_id: str, player: Player, service: Service) -> AnalysisOut:
    """What the player could know: every covered cell proven safe, a mine, or unknown. Refused (409) where the
    page's debug overlay is: in Flags, where one seat would see more than the other."""
    return AnalysisOut(status=await service.aids.analysis(game_id, player))


@router.get("/{game_id}/probabilities", response_model=ProbabilitiesOut)
async def probabilities(game_id: str, player: Player, service: Service) -> ProbabilitiesOut:
    """Each covered cell's exact chance of a mine, from what the player has seen (never from a layout). Refused
    (409) where the page's probability overlay is: in Flags between two people."""
    game, cells = await service.aids.probabilities(game_id, player)
    if cells is None:
        return ProbabilitiesOut(probability=None, budget_exceeded=True)
    rows = [[float(cells[(x, y)]) if (x, y) in cells else None for x in range(game.width)] for y in range(game.height)]
    return ProbabilitiesOut(probability=rows, budget_exceeded=False)


@router.post("/{game_id}/hint", response_model=HintOut)
async def hint(game_id: str, player: Player, service: Service) -> HintOut:
    """A hint: the situation, and a proven-safe cell with the revealed numbers that prove it."""
    _, advice = await service.aids.hint(game_id, player)
    return HintOut(
        kind=advice.kind,
        message=advice.message,
        cell=list(advice.cell) if advice.cell else None,
        proof=[list(cell) for cell in advice.proof],
        uses_count=advice.uses_count,
    )


@router.get("/{game_id}/bot", response_model=BotOut)
async def bot_choice(game_id: str, player: Player, service: Service) -> BotOut:
    """Classic and help games: the cell the bot would open next, from what the player sees (never from the
    layout); asking again names the same cell until the game changes. Asking changes nothing on the board, but
    the advice is an aid: the game keeps "bot" among its `aids` (no clean win on a board of the day)."""
    _, choice = await service.aids.bot_choice(game_id, player)
    x, y = choice.cell
    return BotOut(
        x=x, y=y, safe=choice.safe, mine_probability=choice.mine_probability, action=choice.action, helped=choice.helped
    )


@router.post("/{game_id}/bot", response_model=GameOut)
async def bot_move(game_id: str, player: Player, client: Client, service: Service) -> JSONResponse:
    """Classic and help games: the bot reveals the cell GET .../bot names, as a move; refused as a move is.
    A game the bot played a move of is left out of the player's records."""
    result = await service.games.bot_move(game_id, player, client)
    return JSONResponse(game_out(game_id, result.after, service.clock()))


@router.get(
    "/{game_id}/review",
    response_model=ReviewOut,
    responses={404: {"model": ErrorOut, "description": "no such game, not the player's, or still in play"}},
)
async def game_review(game_id: str, player: Player, service: Service) -> ReviewOut:
    """A finished game's story, every step graded from what the player could see before it (never from the
    layout), and what the grades add up to. Graded once, at the end or at the first ask, and kept. A game
    still in play answers 404: nothing of it is shown before its end."""
    game, graded = await service.reviews.review(game_id, player)
    return review_out(game_id, game, graded)


@router.post("/{game_id}/share", response_model=ShareOut)
async def share_replay(game_id: str, request: Request, player: Player, service: Service) -> ShareOut:
    """Share a finished game's replay by a link that cannot be guessed (the same link while shared); the
    game's maker only. Whoever holds the link sees the replay and its grades, nothing else."""
    game = await service.reviews.share(game_id, player, True)
    assert game.share is not None
    return ShareOut(url=str(request.url_for("shared_replay", game_id=game_id, key=game.share)))


@router.delete("/{game_id}/share", status_code=204)
async def withdraw_replay(game_id: str, player: Player, service: Service) -> Response:
    """Withdraw the replay's link: it opens nothing from now on (a new share makes a new link). Refused (409)
    for the player's entry on a board of the day's ladder, which links to its replay."""
    await service.reviews.share(game_id, player, False)
    return Response(status_code=204)


# ----- rooms (app.rooms) ---------------------------------------------------------------------------------

ROOM_404: dict[int | str, dict[str, Any]] = {
    404: {"model": ErrorOut, "description": "no such room, or the caller is neither in it nor holds its link"}
}


async def room_answer(request: Request, service: GameService, view: RoomView, viewer: str) -> RoomOut:
    """The room as the API shows it to `viewer`, with its game for them (co-op: the shared one; a race:
    their own, once started)."""
    game = None
    if view.game is not None:
        game = game_out(view.game, await service.games.load(view.game, viewer), service.clock())
    link = str(request.url_for("room_invitation", room_id=view.room_id, key=view.room.invite))
    return room_out(view, link, game)


ROOM_429: dict[int | str, dict[str, Any]] = {
    429: {"model": ErrorOut, "description": "too many rooms: the player's, or new ones from this address"}
}


@rooms_router.post("", status_code=201, response_model=RoomOut, responses=ROOM_429)
async def new_room(body: NewRoomIn, request: Request, player: Player, client: Client, service: Service) -> RoomOut:
    """Make a room: "coop", one game every member plays; "race", a game each of the same board, started
    together. The maker is its first member; others join with its `invite` (POST .../join)."""
    room_id, _ = await service.rooms.create_room(
        player,
        client,
        body.kind,
        body.mode,
        body.width,
        body.height,
        body.mines,
        body.settings(),
        body.name,
        body.colour,
    )
    return await room_answer(request, service, await service.rooms.room_view(room_id, player), player)


@rooms_router.post("/{room_id}/join", response_model=RoomOut, responses=ROOM_404)
async def join_room(room_id: str, body: JoinRoomIn, request: Request, player: Player, service: Service) -> RoomOut:
    """Join a room by its invitation's key, as `name` (up to 8 players; joining again changes nothing). A
    co-op member moves in the shared game at once (POST /api/games/{game}/moves); a race's late joiner
    watches until the rematch."""
    await service.rooms.join_room(room_id, body.invite, player, body.name, body.colour)
    return await room_answer(request, service, await service.rooms.room_view(room_id, player), player)


@rooms_router.get("/{room_id}", response_model=RoomOut, responses=ROOM_404)
async def read_room(
    room_id: str, request: Request, player: Player, service: Service, invite: str | None = None
) -> RoomOut:
    """The room: its players (name, colour, whether their page is open, and in a race each one's progress,
    deaths and time) and its game. Whoever holds the link and has not joined passes `invite` and watches;
    a racer still playing is never shown another racer's board."""
    viewer = watcher(invite) if invite is not None else player
    view = await service.rooms.room_view(room_id, viewer, player)
    return await room_answer(request, service, view, player if not view.watching else viewer)


@rooms_router.post("/{room_id}/start", response_model=RoomOut, responses=ROOM_404)
async def start_room(room_id: str, request: Request, player: Player, service: Service) -> RoomOut:
    """Start a race (its maker, with two players at least), or its rematch (any racer, once someone cleared
    the board or every racer is out): every racer's board opens after a short countdown (`starts_at`)."""
    await service.rooms.start_room(room_id, player)
    return await room_answer(request, service, await service.rooms.room_view(room_id, player), player)


@rooms_router.post("/{room_id}/leave", status_code=204, responses=ROOM_404)
async def leave_room(room_id: str, player: Player, service: Service) -> Response:
    """Leave a room; its games stay as they were played. The last to leave takes the room away."""
    await service.rooms.leave_room(room_id, player)
    return Response(status_code=204)


# ----- boards of the day ----------------------------------------------------------------------------------


@daily_router.get("", response_model=DailyOut)
async def daily(player: Player, service: Service) -> DailyOut:
    """Today's boards (UTC; they change at 00:00 UTC), the same for every player of the server: a cruel Expert
    board and a no-guess classic Expert board, with the player's game of each still in play, their entry on
    each ladder, their name and their streak of days won."""
    return daily_out(await service.daily.daily(player))


@daily_router.post("/{date}/{mode}/games", **CREATES_A_GAME)
async def play_daily(date: str, mode: str, player: Player, client: Client, service: Service) -> JSONResponse:
    """Play today's board in `mode`: the player's game of it still in play, or a new one. The first of the
    player's games of a board to end is their entry on its ladder; later ones are practice."""
    game_id, game = await service.daily.play_daily(player, client, f"{date}/{mode}")
    return JSONResponse(game_out(game_id, game, service.clock()), status_code=201)


@daily_router.get("/{date}/ladder", response_model=LadderOut)
async def ladder(date: str, player: Player, service: Service) -> LadderOut:
    """The ladders of a day's boards: clean wins by time (ties by who finished first), then wins with help,
    marked; at most the best 100, and the line of the player asking wherever it stands."""
    return ladder_out(await service.daily.ladders(date, player))


@names_router.put("", response_model=NameOut)
async def set_name(body: NameIn, player: Player, client: Client, service: Service) -> NameOut:
    """Choose the name the ladders show (1 to 24 letters of any script, digits, spaces, '-' and '_'; trimmed).
    A player without one is shown as "anonymous" with a tag that stays the same."""
    return NameOut(name=await service.daily.set_name(player, client, body.name))
