"""What a page or a fragment shows: the words, cells and rows the templates draw, and a page's context.

game.py       how a game looks: cells, the status panel, seat lines, the list of games, times and chances in words
game_page.py  a game's page for one viewer: its context, with the game's seating and its room
reviews.py    a finished game's replay: its frames, each move's grade in words, the summary
rooms.py      how a room looks to one viewer, the list of a player's rooms, a room page's context
daily.py      the boards of the day: a day's boards and ladders, the calendar, what the rules page says of them

A view may import app.core, app.modes (the registry), app.rooms, app.results, the service's and the store's
answers (app.service, app.store), and of the web layer deps (the templates), render and faces; never a
route, a schema or app.host.
"""
