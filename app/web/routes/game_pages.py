"""The page of a game and its HTMX fragments: a new game (the form, a board's link), a restart, a deletion, the
page itself; then what its clicks send (moves, the bot, settings, hints). Forms and clicks become service
operations.

Two routers, registered around the seats' (app.web.routes.seats): `router` (making, opening and
deleting a game) and `moves_router` (what a click on the page sends)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from app.core.game import Invalid, Move, board_size
from app.core.languages import N_, gettext, lazy_gettext
from app.modes import BOARD_MODE, DEFAULT_MODE, get_mode, variant_of
from app.service import GameService
from app.store import Corrupt, NotFound
from app.web.deps import Client, Player, Service, is_htmx
from app.web.render import blocks, move_answer, page
from app.web.views.game_page import company, game_context

router = APIRouter(include_in_schema=False, default_response_class=HTMLResponse)
moves_router = APIRouter(include_in_schema=False, default_response_class=HTMLResponse)


@router.post("/games/{game_id}/delete")
async def delete_form(game_id: str, player: Player, service: Service) -> Response:
    await service.games.delete(game_id, player)
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
    mode: Annotated[str, Form()] = DEFAULT_MODE,
    choice: Annotated[str, Form()] = "",
    settings_of: Annotated[str | None, Form()] = None,
    opponent: Annotated[str | None, Form()] = None,
    level: Annotated[str | None, Form()] = None,
    room: Annotated[str, Form()] = "",
    name: Annotated[str, Form()] = "",
) -> Response:
    """A new game of a preset or custom size in a mode (`choice`, "MODE PRESET", names both: the page's
    buttons); its settings are those of the game `settings_of` names (the player's current one) as they
    are now, as far as the mode has them, or the defaults."""
    if choice:
        mode, _, preset = choice.partition(" ")
        # A row of the form may offer its mode's variants (cruel Flags in Flags'): the presets play the one chosen.
        variant = (await request.form()).get(f"variant-{mode}")
        if isinstance(variant, str) and variant:
            mode = variant_of(mode, variant)
    # A refused form comes back filled in as it was sent (see app.web.errors).
    request.state.form = {"width": width, "height": height, "mines": mines, "unit": unit, "mode": mode}
    rules = get_mode(mode)
    if preset in rules.presets:
        size = rules.presets[preset]
    elif preset == "custom":
        size = board_size(
            whole(width, "width"),
            whole(height, "height"),
            mines=whole(mines, "mines") if unit == "count" else None,
            percent=decimal(mines, "mine percentage") if unit == "percent" else None,
        )
    else:
        raise Invalid(lazy_gettext("unknown preset %(preset)s", preset=repr(preset)))
    # Read from the game, not from the page: settings changed during the game are not in an old form.
    settings = await settings_from(service, settings_of, player) if settings_of else {}
    names = rules.options_class.names()
    chosen = {name: on for name, on in settings.items() if name in names}
    if room:
        # A room of others playing this board (app.rooms): made, then its page, with the link to send.
        room_id, _ = await service.rooms.create_room(player, client, room, rules.name, *size, chosen, name)
        return RedirectResponse(f"/rooms/{room_id}", status_code=303)
    # The form holds every mode's fields: only the chosen mode's go to it.
    seat_fields = rules.seat_fields
    game_id, _ = await service.games.create(
        player,
        client,
        rules.name,
        *size,
        chosen,
        opponent=(opponent or None) if "opponent" in seat_fields else None,
        level=(level or None) if opponent == "computer" and "level" in seat_fields else None,
    )
    return RedirectResponse(f"/games/{game_id}", status_code=303)


@router.get("/play/{board_id}")
async def play_board(
    board_id: str, player: Player, client: Client, service: Service, mode: str = BOARD_MODE
) -> Response:
    """A shared board: a new game of the layout its id names, for whoever opens the link."""
    game_id, _ = await service.games.create(player, client, mode, 0, 0, 0, {}, board_id)
    return RedirectResponse(f"/games/{game_id}", status_code=303)


@router.post("/games/{game_id}/restart")
async def restart_form(game_id: str, player: Player, client: Client, service: Service) -> Response:
    new_id, _ = await service.games.restart(game_id, player, client)
    return RedirectResponse(f"/games/{new_id}", status_code=303)


async def settings_from(service: GameService, game_id: str, player: str) -> dict[str, bool]:
    """A game's settings as they are now; the defaults when it is gone or damaged (a new game must still start)."""
    try:
        return (await service.games.load(game_id, player)).options.as_dict()
    except (NotFound, Corrupt):
        return {}


@router.get("/games/{game_id}")
async def game_page(request: Request, game_id: str, player: Player, service: Service) -> Response:
    game, overlay, review = await service.games.look(game_id, player)
    context = await game_context(request, service, game_id, game, player, overlay, review=review)
    return page(request, "game.html", context)


@moves_router.post("/games/{game_id}/moves")
async def move_form(
    request: Request,
    game_id: str,
    player: Player,
    client: Client,
    service: Service,
    action: Annotated[str, Form()],
    x: Annotated[str, Form()] = "",
    y: Annotated[str, Form()] = "",
    version: Annotated[str, Form()] = "",
) -> Response:
    if not is_htmx(request):
        return RedirectResponse(f"/games/{game_id}", status_code=303)
    move = Move(action, whole(x, "x") if x else None, whole(y, "y") if y else None)
    request.state.page_version = version  # a refusal answers a page behind the game with the board as it is
    result = await service.games.move(game_id, player, move, client)
    around = await company(request, service, game_id, result.after, player)
    return move_answer(request, game_id, result, version, service.clock(), **around)


@moves_router.post("/games/{game_id}/bot")
async def bot_move_form(
    request: Request,
    game_id: str,
    player: Player,
    client: Client,
    service: Service,
    version: Annotated[str, Form()] = "",
) -> Response:
    """One step of Play for me (kaboom.js): the bot's next cell, answered as a click on it is."""
    if not is_htmx(request):
        return RedirectResponse(f"/games/{game_id}", status_code=303)
    request.state.page_version = version
    result = await service.games.bot_move(game_id, player, client)
    around = await company(request, service, game_id, result.after, player)
    return move_answer(request, game_id, result, version, service.clock(), **around)


@moves_router.get("/games/{game_id}/bot")
async def bot_choice_page(request: Request, game_id: str, player: Player, service: Service) -> Response:
    """What would the bot do? Its next cell, ringed on the board, with the reason in the panel."""
    _, choice = await service.aids.bot_choice(game_id, player)
    game, overlay, _ = await service.games.look(game_id, player)
    context = await game_context(request, service, game_id, game, player, overlay, bot=choice, oob=is_htmx(request))
    return blocks(request, context, "panel") if is_htmx(request) else page(request, "game.html", context)


@moves_router.post("/games/{game_id}/options")
async def options_form(request: Request, game_id: str, player: Player, service: Service) -> Response:
    game = await service.games.load(game_id, player)
    # The form sends only the ticked boxes, so any other body (JSON, nothing at all) would read
    # as "every box unticked": only the form's own encoding is taken.
    if request.headers.get("content-type", "").split(";", 1)[0].strip().lower() != "application/x-www-form-urlencoded":
        raise Invalid(lazy_gettext("The settings come from the page's settings form only; nothing was changed."))
    form = await request.form()
    options = type(game.options)
    # A ticked box is sent as name=on, an unticked one not at all: every setting the form lacks
    # is off. Any other name or value is refused by the check, naming it.
    sent = {name: True if value == "on" else value for name, value in form.multi_items()}
    changes = options.checked({**dict.fromkeys(options.names(), False), **sent})
    await service.games.set_options(game_id, player, changes)
    if not is_htmx(request):
        return RedirectResponse(f"/games/{game_id}", status_code=303)
    # A setting that shapes the deal, changed once the board is dealt, is kept for the next game: say so.
    waiting = [
        options.label(name)
        for name, on in changes.items()
        if on != getattr(game.options, name) and options.at_deal(name) and game.started_at is not None
    ]
    message = (
        gettext(
            "%(setting)s: from the next board, as this one is already dealt. Play again (F2) deals one.",
            setting=gettext(waiting[0]),
        )
        if waiting
        else ""
    )
    game, overlay, review = await service.games.look(game_id, player)
    context = await game_context(
        request, service, game_id, game, player, overlay, review=review, oob=True, message=message
    )
    return blocks(request, context, "panel", "grid", "settings")


@moves_router.post("/games/{game_id}/hint")
async def hint_form(
    request: Request, game_id: str, player: Player, service: Service, show: Annotated[str, Form()] = ""
) -> Response:
    _, advice = await service.aids.hint(game_id, player)
    if not is_htmx(request):
        return RedirectResponse(f"/games/{game_id}", status_code=303)
    game, overlay, _ = await service.games.look(game_id, player)
    context = await game_context(
        request, service, game_id, game, player, overlay, hint=advice, show_hint=show == "yes", oob=True
    )
    return blocks(request, context, "panel")


# What a field the form sends as a number says when it is not one, by the field's name: whole sentences.
NOT_A_NUMBER = {
    "width": N_("width must be a whole number, not %(text)s"),
    "height": N_("height must be a whole number, not %(text)s"),
    "mines": N_("mines must be a whole number, not %(text)s"),
    "x": N_("x must be a whole number, not %(text)s"),
    "y": N_("y must be a whole number, not %(text)s"),
    "mine percentage": N_("mine percentage must be a number, not %(text)s"),
}


def whole(text: str, name: str) -> int:
    """The field `name` (a key of NOT_A_NUMBER) as a whole number; Invalid when it is not one."""
    try:
        return int(text.strip())
    except ValueError:
        raise Invalid(lazy_gettext(NOT_A_NUMBER[name], text=repr(text))) from None


def decimal(text: str, name: str) -> float:
    """The field `name` (a key of NOT_A_NUMBER) as a number; Invalid when it is not one."""
    try:
        return float(text.strip())
    except ValueError:
        raise Invalid(lazy_gettext(NOT_A_NUMBER[name], text=repr(text))) from None
