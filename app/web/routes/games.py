"""The JSON API of games, for scripts and bots: the same service operations as the pages. A feature's own part
of the API (a game's review, the records, rooms, the boards of the day) is in its module."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse, Response

from app.core.game import Move
from app.web.deps import Client, Player, Service
from app.web.schemas.base import ERROR_RESPONSES, ErrorOut
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

router = APIRouter(prefix="/api/games", tags=["games"], responses=ERROR_RESPONSES)
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
    _, cells = await service.aids.probabilities(game_id, player)
    if cells is None:
        return ProbabilitiesOut(probability=None, budget_exceeded=True)
    return ProbabilitiesOut(probability=cells.rows(), budget_exceeded=False)


@router.post("/{game_id}/hint", response_model=HintOut)
async def hint(game_id: str, player: Player, service: Service) -> HintOut:
    """A hint: the situation, and a proven-safe cell with the revealed numbers that prove it."""
    _, advice = await service.aids.hint(game_id, player)
    return HintOut(
        kind=advice.kind,
        message=str(advice.message),
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
