"""The JSON API's request and answer shapes, one module per feature, built from the registries where the modes
shape them (app.modes, app.rooms, app.web.faces).

base.py     what every request and answer shares: strict bodies, the error answer and the errors every route may give
games.py    a new game, a move, a change of settings, the game, the list of games, the analysis, hint and bot
records.py  the player's records
reviews.py  a finished game's review, and a shared replay's link
rooms.py    a new room, joining one, the room
daily.py    the boards of the day, their ladders, the player's name

A schema may import app.core, app.modes (the registry), app.rooms, app.results, the store's listings and the
faces; never a route, a view or app.host. Their names are the OpenAPI document's: keep them.
"""
