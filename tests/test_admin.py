"""`kaboom admin` (issue 45 #6): the host lists names, renames or blanks one, takes an entry off a ladder, closes a
room and keeps an address from naming itself, on the server's own store; each action is in the audit log, which
names no player by their id. Two servers on one SQLite file (two hosts) show the change alike; on Redis, two
services on one prefix."""

from __future__ import annotations

import asyncio
import datetime
import io
import json
import uuid
from contextlib import redirect_stderr

import httpx
import pytest

from app.cli import main
from app.service.kept import KEPT
from app.store import SQLiteStore
from tests.live import live_server, seconds

pytestmark = pytest.mark.server


def entry(won: bool = True) -> str:
    moment = datetime.datetime.now(datetime.UTC).timestamp()
    return json.dumps(
        {"won": won, "clean": won, "aids": [], "deaths": 0, "seconds": 61.5, "finished_at": moment, "bbbv": None}
        | {"bbbv_per_second": None, "accuracy": None, "game_id": "kept-by-hand", "replay": None}
    )


def kaboom_admin(*arguments: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stderr(err):
        status = main(["admin", *arguments], stdout=out)
    return status, out.getvalue(), err.getvalue()


@pytest.fixture
def hosts(tmp_path, monkeypatch):
    """Two servers on one SQLite file, and the host's command line set to the same file (and its key)."""
    database = tmp_path / "games.sqlite3"
    monkeypatch.setenv("KABOOM_DATABASE", str(database))
    monkeypatch.delenv("KABOOM_STORE", raising=False)
    with live_server(database) as one, live_server(database) as other:
        yield database, one, other


def ladder_names(url: str, day: str) -> list[str]:
    with httpx.Client(base_url=url, timeout=seconds(30)) as anyone:
        boards = anyone.get(f"/api/daily/{day}/ladder").json()["boards"]
    return [line["name"] for board in boards if board["mode"] == "cruel" for line in board["lines"]]


def test_the_hosts_actions_change_every_host_and_are_in_the_audit_log(hosts):
    database, one, other = hosts
    day = datetime.datetime.now(datetime.UTC).date().isoformat()
    with (
        httpx.Client(base_url=one, timeout=seconds(30)) as rude,
        httpx.Client(base_url=other, timeout=seconds(30)) as fine,
    ):
        assert rude.put("/api/name", json={"name": "Rude Name"}).status_code == 200
        player = rude.get("/api/player/export").json()["player"]
        store = SQLiteStore(database, kept=KEPT)
        store.enter_ladder(f"{day}/cruel", player, 0, 61_500, entry())
        store.close()
        assert ladder_names(one, day) == ladder_names(other, day) == ["Rude Name"]

        status, listed, _ = kaboom_admin("names")
        assert status == 0 and "Rude Name" in listed and player not in listed
        # Found by a name that looks the same; the new name is checked as a player's own.
        status, said, _ = kaboom_admin("rename", "rude name", "Polite", "--reason", "rude")
        assert status == 0 and json.loads(said)["new_name"] == "Polite"
        assert ladder_names(one, day) == ladder_names(other, day) == ["Polite"]
        assert rude.get("/api/daily").json()["name"] == "Polite"
        # Its look is free: another player may go by it now; Polite is taken.
        assert fine.put("/api/name", json={"name": "Rude Name"}).status_code == 200
        assert kaboom_admin("rename", "Rude Name", "polite")[0] == 2, "another player goes by that look"

        assert kaboom_admin("blank", "Polite")[0] == 0
        [anonymous] = ladder_names(other, day)
        assert anonymous.startswith("anonymous ") and rude.get("/api/daily").json()["name"] is None
        assert kaboom_admin("remove-entry", day, "cruel", anonymous)[0] == 0
        assert ladder_names(one, day) == ladder_names(other, day) == []

        # An address kept from naming itself, on every host, until let go.
        assert kaboom_admin("block", "127.0.0.1", "--reason", "names")[0] == 0
        for client in (rude, fine):
            refused = client.put("/api/name", json={"name": "Again"})
            assert refused.status_code == 409 and "cannot be chosen from your address" in refused.json()["message"]
        assert kaboom_admin("unblock", "127.0.0.1")[0] == 0
        assert rude.put("/api/name", json={"name": "Again"}).status_code == 200

        room = fine.post(
            "/api/rooms", json={"kind": "coop", "name": "Ann", "mode": "classic", "width": 9, "height": 9, "mines": 10}
        )
        room_id = room.json()["id"]
        assert kaboom_admin("close-room", room_id)[0] == 0
        assert fine.get(f"/api/rooms/{room_id}").status_code == 404

    status, log, _ = kaboom_admin("log")
    lines = [json.loads(line) for line in log.splitlines()]
    assert [line["action"] for line in lines] == ["close-room", "unblock", "block", "remove-entry", "blank", "rename"]
    assert lines[-1]["reason"] == "rude" and lines[-1]["name"] == "Rude Name" and "@" in lines[-1]["by"]
    assert lines[-1]["player"] == lines[-2]["player"] == lines[-3]["player"], "one tag for one player"
    assert player not in log, "the audit log names no player by their id"


def test_the_host_is_told_what_was_not_there_and_nothing_changes(hosts):
    database, one, _ = hosts
    for arguments, said in (
        (("rename", "Nobody", "Somebody"), "no player goes by the name 'Nobody'"),
        (("blank", "Nobody"), "no player goes by the name"),
        (("remove-entry", "2026-13-01", "cruel", "x"), "2026-13-01"),
        (("remove-entry", "2026-11-01", "chess", "x"), "no board of the day in mode 'chess'"),
        (("close-room", "no-such-room"), "no room 'no-such-room'"),
        (("unblock", "192.0.2.1"), "is not blocked"),
    ):
        status, out, err = kaboom_admin(*arguments)
        assert status == 2 and said in err and out == "", (arguments, err)
    assert kaboom_admin("log")[1] == "", "nothing was done, so nothing is in the log"
    with pytest.raises(SystemExit):
        kaboom_admin("names", "--limit", "0")


@pytest.mark.redis
def test_a_rename_on_redis_shows_on_every_host(redis_url, clock):
    from app.store.redis import RedisStore
    from tests.test_daily import service_on

    prefix = f"admin-{uuid.uuid4().hex}"
    one, other = (service_on(RedisStore(redis_url, prefix=prefix, clock=clock, kept=KEPT), clock) for _ in range(2))
    try:
        asyncio.run(one.daily.set_name("alice", "client", "Rude Name"))
        other.moderation.rename("Rude Name", "Polite")
        assert asyncio.run(one.daily.shown_name("alice")) == asyncio.run(other.daily.shown_name("alice")) == "Polite"
        assert [line["action"] for line in one.moderation.audit_log(10)] == ["rename"]
    finally:
        one.close()
        other.close()
