"""The routes, one module per feature; a feature's `router` serves its pages and fragments, its `api_router` its
part of the JSON API (games.py is the API's alone).

site.py        the home page, the rules, the API's docs, the health check
records.py     the player's records: their page and /api/records
game_pages.py  the page of a game: a new game, a board's link, a restart, a deletion; its moves, the bot, settings, hint
seats.py       a game of several seats: the invitation, joining, freeing a seat, watching, live events and polls
reviews.py     a finished game's replay (the player's, a shared link's), its overlays, its link; /api/games/{id}/review
rooms.py       a room's pages, live events and polls; /api/rooms
daily.py       the boards of the day's pages and the name form; /api/daily, /api/name
players.py     the player's data as a whole: download it, delete it; /api/player
games.py       the JSON API of games (/api/games)

A route may import app.core, app.modes (the registry), app.rooms (the registry), the service, the store's errors
and, of the web layer, deps, render, the views and the schemas; another route module only for what every route
that starts a game answers (games.CREATES_A_GAME). Nothing of app.host.
"""

from __future__ import annotations

from fastapi import APIRouter

from app.web.routes import daily, game_pages, games, players, records, reviews, rooms, seats, site

# Every router, in the order create_app registers them: a request goes to the first route that matches, and the
# OpenAPI document lists the paths in this order (tests/golden/openapi). The moves' routers first: FastAPI tries
# the routes of every router before the one that matches, and moves are most of what a server answers (no other
# route's path can match theirs), and the live pages' polls and event streams next; then the other pages, then the
# rest of the JSON API.
ROUTERS: tuple[APIRouter, ...] = (
    game_pages.moves_router,
    games.router,
    seats.router,
    site.router,
    records.router,
    game_pages.router,
    reviews.router,
    rooms.router,
    daily.router,
    players.router,
    reviews.api_router,
    records.api_router,
    rooms.api_router,
    daily.api_router,
    daily.names_router,
    players.api_router,
)
