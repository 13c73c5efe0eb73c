"""The pages and their HTMX fragments: forms and clicks become service operations."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, RedirectResponse, Response

from app.game import PRESETS, Invalid, Move, board_size
from app.modes import MODES, get_mode
from app.service import GameService
from app.store import Corrupt, NotFound, StoreUnavailable
from app.web.deps import STATIC, Client, Player, Service, is_htmx
from app.web.render import blocks, move_answer, page, page_context
from app.web.view import clock_text, game_list

router = APIRouter(include_in_schema=False, default_response_class=HTMLResponse)


@router.get("/healthz", response_class=JSONResponse)
def healthz(service: Service) -> JSONResponse:
    """{"status": "ok"} while the store can read and save games (the Docker HEALTHCHECK reads it);
    otherwise 503, naming the part that is down."""
    try:
        service.store.check()
    except StoreUnavailable as down:
        return JSONResponse({"status": "down", "store": down.part, "detail": down.message}, status_code=503)
    return JSONResponse({"status": "ok"})


@router.get("/docs", response_class=FileResponse)
def api_docs() -> FileResponse:
    """Swagger UI for the JSON API, from the copy vendored in static/ (see static/VENDORED.md)."""
    return FileResponse(STATIC / "docs.html")


@router.get("/")
async def home(request: Request, player: Player, service: Service) -> Response:
    """The player's games, running and finished, to resume or delete; a welcome for a new player."""
    listings = await service.games_of(player)
    return page(request, page_context(None, games=game_list(listings, service.clock())))


@router.get("/records")
async def records_page(request: Request, player: Player, service: Service) -> Response:
    """The player's records per mode and size."""
    return page(request, page_context(None, records=await service.records(player), modes_by_name=MODES, clock=clock_text))


@router.post("/games/{game_id}/delete")
async def delete_form(game_id: str, player: Player, service: Service) -> Response:
    await service.delete(game_id, player)
    return RedirectResponse("/", status_code=303)


@router.post("/games")
async def new_game_form(
    request: Request,
    player: Player,
    client: Client,
    service: Service,
    preset: Annotated[str, Form()] = "custom",
    width: Annotated[str, Form()] = "",
    height: Annotated[str, Form()] = "",
    mines: Annotated[str, Form()] = "",
    unit: Annotated[str, Form()] = "count",
    mode: Annotated[str, Form()] = "cruel",
    settings_of: Annotated[str | None, Form()] = None,
) -> Response:
    """A new game of a preset or custom size in a mode; its settings are those of the game `settings_of`
    names (the player's current one) as they are now, as far as the mode has them, or the defaults."""
    # A refused form comes back filled in as it was sent (see app.web.errors).
    request.state.form = {"width": width, "height": height, "mines": mines, "unit": unit, "mode": mode}
    rules = get_mode(mode)
    if preset in PRESETS:
        size = PRESETS[preset]
    elif preset == "custom":
        size = board_size(
            whole(width, "width"),
            whole(height, "height"),
            mines=whole(mines, "mines") if unit == "count" else None,
            percent=decimal(mines, "mine percentage") if unit == "percent" else None,
        )
    else:
        raise Invalid(f"unknown preset {preset!r}")
    # Read from the game, not from the page: settings changed during the game are not in an old form.
    settings = await settings_from(service, settings_of, player) if settings_of else {}
    names = rules.options_class.names()
    game_id, _ = await service.create(player, client, rules.name, *size, {name: on for name, on in settings.items() if name in names})
    return RedirectResponse(f"/games/{game_id}", status_code=303)


@router.get("/play/{board_id}")
async def play_board(board_id: str, player: Player, client: Client, service: Service, mode: str = "classic") -> Response:
    """A shared board: a new game of the layout its id names, for whoever opens the link."""
    game_id, _ = await service.create(player, client, mode, 0, 0, 0, {}, board_id)
    return RedirectResponse(f"/games/{game_id}", status_code=303)


@router.post("/games/{game_id}/restart")
async def restart_form(game_id: str, player: Player, client: Client, service: Service) -> Response:
    new_id, _ = await service.restart(game_id, player, client)
    return RedirectResponse(f"/games/{new_id}", status_code=303)


async def settings_from(service: GameService, game_id: str, player: str) -> dict[str, bool]:
    """A game's settings as they are now; the defaults when it is gone or damaged (a new game must still start)."""
    try:
        return (await service.load(game_id, player)).options.as_dict()
    except (NotFound, Corrupt):
        return {}


@router.get("/games/{game_id}")
async def game_page(request: Request, game_id: str, player: Player, service: Service) -> Response:
    game, overlay, review = await service.look(game_id, player)
    return page(request, page_context(game_id, game, overlay, now=service.clock(), review=review))


@router.post("/games/{game_id}/moves")
async def move_form(
    request: Request,
    game_id: str,
    player: Player,
    service: Service,
    action: Annotated[str, Form()],
    x: Annotated[str, Form()] = "",
    y: Annotated[str, Form()] = "",
    version: Annotated[str, Form()] = "",
) -> Response:
    if not is_htmx(request):
        return RedirectResponse(f"/games/{game_id}", status_code=303)
    move = Move(action, whole(x, "x") if x else None, whole(y, "y") if y else None)
    result = await service.move(game_id, player, move)
    return move_answer(request, game_id, result, version, service.clock())


@router.post("/games/{game_id}/bot")
async def bot_move_form(request: Request, game_id: str, player: Player, service: Service, version: Annotated[str, Form()] = "") -> Response:
    """One step of Play for me (kaboom.js): the bot's next cell, answered as a click on it is."""
    if not is_htmx(request):
        return RedirectResponse(f"/games/{game_id}", status_code=303)
    result = await service.bot_move(game_id, player)
    return move_answer(request, game_id, result, version, service.clock())


@router.get("/games/{game_id}/bot")
async def bot_choice_page(request: Request, game_id: str, player: Player, service: Service) -> Response:
    """What would the bot do? Its next cell, ringed on the board, with the reason in the panel."""
    _, choice = await service.bot_choice(game_id, player)
    game, overlay, _ = await service.look(game_id, player)
    context = page_context(game_id, game, overlay, now=service.clock(), bot=choice, oob=is_htmx(request))
    return blocks(request, context, "panel") if is_htmx(request) else page(request, context)


@router.post("/games/{game_id}/options")
async def options_form(request: Request, game_id: str, player: Player, service: Service) -> Response:
    game = await service.load(game_id, player)
    # The form sends only the ticked boxes, so any other body (JSON, nothing at all) would read
    # as "every box unticked": only the form's own encoding is taken.
    if request.headers.get("content-type", "").split(";", 1)[0].strip().lower() != "application/x-www-form-urlencoded":
        raise Invalid("The settings come from the page's settings form only; nothing was changed.")
    form = await request.form()
    options = type(game.options)
    # A ticked box is sent as name=on, an unticked one not at all: every setting the form lacks
    # is off. Any other name or value is refused by the check, naming it.
    sent = {name: True if value == "on" else value for name, value in form.multi_items()}
    changes = options.checked({**dict.fromkeys(options.names(), False), **sent})
    await service.set_options(game_id, player, changes)
    if not is_htmx(request):
        return RedirectResponse(f"/games/{game_id}", status_code=303)
    game, overlay, review = await service.look(game_id, player)
    return blocks(request, page_context(game_id, game, overlay, now=service.clock(), review=review, oob=True), "panel", "grid")


@router.post("/games/{game_id}/hint")
async def hint_form(request: Request, game_id: str, player: Player, service: Service, show: Annotated[str, Form()] = "") -> Response:
    _, advice = await service.hint(game_id, player)
    if not is_htmx(request):
        return RedirectResponse(f"/games/{game_id}", status_code=303)
    game, overlay, _ = await service.look(game_id, player)
    context = page_context(game_id, game, overlay, now=service.clock(), hint=advice, show_hint=show == "yes", oob=True)
    return blocks(request, context, "panel")


def whole(text: str, name: str) -> int:
    try:
        return int(text.strip())
    except ValueError:
        raise Invalid(f"{name} must be a whole number, not {text!r}") from None


def decimal(text: str, name: str) -> float:
    try:
        return float(text.strip())
    except ValueError:
        raise Invalid(f"{name} must be a number, not {text!r}") from None
