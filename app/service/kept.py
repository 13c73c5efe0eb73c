"""What the store is handed to read and write what it keeps (app.store.Kept): the modes' registry, the rooms'
codec and the records' tallies. Built here, above the store, so that the store depends on no feature and no mode;
every server, the slow lane and the tests open their stores with it."""

from __future__ import annotations

from app.modes import MODES
from app.results.records import TALLIED, recount, tally, tally_key
from app.rooms import MAX_PLAYERS, decode_room, encode_room, recast_room
from app.store import Kept

KEPT = Kept(
    modes=MODES,
    encode_room=encode_room,
    decode_room=decode_room,
    recast_room=recast_room,
    room_seats=MAX_PLAYERS,
    tallied=TALLIED,
    tally_key=tally_key,
    tally=tally,
    recount=recount,
)
