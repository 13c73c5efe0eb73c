"""A player's data as a whole (issue 45 #5, #7): the download holds everything a scan of the SQLite file finds for
the player, nothing of a layout a game hides; the deletion, confirmed, leaves nothing of them in the file while the
games others share go on; refused, it changes nothing. Through the page and the JSON API of a real uvicorn."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import httpx
import pytest

from tests.live import live_server, put_layout, seconds

pytestmark = pytest.mark.server

BOARD = {"mode": "classic", "width": 9, "height": 9, "mines": 10}


@pytest.fixture
def server(tmp_path):
    database = tmp_path / "games.sqlite3"
    with live_server(database) as url:
        yield url, database


def client(url: str) -> httpx.Client:
    return httpx.Client(base_url=url, timeout=seconds(30))


def ok(response: httpx.Response, status: int = 200) -> dict:
    assert response.status_code == status, response.text
    return response.json() if response.content else {}


def scan(database: Path, needle: str) -> list[tuple[str, ...]]:
    """Every row of every table of the file that holds `needle`, read without the store."""
    found = []
    with sqlite3.connect(database) as connection:
        for (table,) in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall():
            for row in connection.execute(f"SELECT * FROM {table}"):
                texts = tuple(str(value) for value in row)
                if any(needle in text for text in texts):
                    found.append((table, *texts))
    return found


def a_player_of_everything(alice: httpx.Client, bob: httpx.Client, database: Path) -> dict[str, str]:
    """Alice with a lost game (a result), a game in play, a Flags game Bob joined, a room with Bob, a name."""
    made = {}
    lost = ok(alice.post("/api/games", json=BOARD), 201)["id"]
    put_layout(database, lost, ["o*.", "*..", "..."])
    assert ok(alice.post(f"/api/games/{lost}/moves", json={"action": "reveal", "x": 1, "y": 0}))["status"] == "lost"
    made["lost"] = lost
    made["playing"] = ok(alice.post("/api/games", json=BOARD), 201)["id"]
    flags = alice.post(
        "/games",
        data={"mode": "flags", "preset": "custom", "width": "6", "height": "6", "mines": "9", "opponent": "invite"},
    )
    assert flags.status_code == 303, flags.text
    made["flags"] = flags.headers["location"].rsplit("/", 1)[1]
    link = re.search(
        r'id="invite-link" type="text" readonly value="([^"]+)"', alice.get(f"/games/{made['flags']}").text
    )
    key = link.group(1).rsplit("/", 1)[1]
    assert bob.post(f"/games/{made['flags']}/join/{key}").status_code == 303
    room = ok(alice.post("/api/rooms", json={"kind": "coop", "name": "Alice", **BOARD}), 201)
    ok(bob.post(f"/api/rooms/{room['id']}/join", json={"invite": room["invite"], "name": "Bob"}))
    made["room"] = room["id"]
    ok(alice.put("/api/name", json={"name": "Alice Keeps"}))
    return made


def test_the_download_holds_everything_the_file_holds_of_the_player_and_no_hidden_layout(server):
    url, database = server
    with client(url) as alice, client(url) as bob:
        made = a_player_of_everything(alice, bob, database)
        answer = alice.get("/api/player/export")
        assert answer.status_code == 200 and answer.headers["content-disposition"].startswith("attachment;")
        export = answer.json()
        player = export["player"]
        assert export["format"] == "kaboom-player" and export["name"] == "Alice Keeps"
        games = {game["id"]: game for game in export["games"]}
        assert set(games) >= {made["lost"], made["playing"], made["flags"]}
        assert set(export["results"]) == {made["lost"]} and export["records"][0]["games"] == 1
        assert [room["id"] for room in export["rooms"]] == [made["room"]] and export["rooms"][0]["name"] == "Alice"
        # Every row the file holds for her is named by the download: by a game, a room, a result, her name.
        named = {*games, *export["results"], *(room["id"] for room in export["rooms"]), *export["claims"]}
        rows = scan(database, player)
        assert rows and all(named & set(row) or row[0] in ("names", "tallies") for row in rows), rows
        # A game in play is as the player's API shows it: its layout is nowhere in the file's copy sent out.
        shown = ok(alice.get(f"/api/games/{made['playing']}"))
        assert {key: value for key, value in games[made["playing"]]["game"].items() if key != "elapsed"} == {
            key: value for key, value in shown.items() if key != "elapsed"
        }
        assert "hidden" not in answer.text and '"mines": [' not in answer.text
        assert games[made["lost"]]["moves"] == [{"action": "reveal", "x": 1, "y": 0}]
        assert games[made["flags"]]["seats"] == [0]
        # The page's download is the same document.
        page = alice.get("/player")
        assert page.status_code == 200 and 'href="/player/export"' in page.text
        downloaded = alice.get("/player/export").json()
        assert {key: value for key, value in downloaded.items() if key != "exported_at"} == {
            key: value for key, value in export.items() if key != "exported_at"
        }


def test_a_deletion_unconfirmed_changes_nothing_and_confirmed_leaves_nothing_of_the_player(server):
    url, database = server
    with client(url) as alice, client(url) as bob:
        made = a_player_of_everything(alice, bob, database)
        player = ok(alice.get("/api/player/export"))["player"]
        before = scan(database, player)
        # Without the box ticked (the page) or the words (the API): refused, nothing deleted.
        refused = alice.post("/player/delete", data={})
        assert refused.status_code == 422 and "tick the box" in refused.text
        assert alice.post("/api/player/delete", json={"confirm": "yes"}).status_code == 422
        assert alice.post("/api/player/delete", json={}).status_code == 422
        assert scan(database, player) == before

        deleted = alice.post("/player/delete", data={"confirm": "yes"})
        assert deleted.status_code == 303 and deleted.headers["location"] == "/player/deleted"
        assert "Everything was deleted" in alice.get("/player/deleted").text
        assert scan(database, player) == []
        # The browser is a new player; the game and room Bob shared with her go on, her seat held by nobody.
        assert ok(alice.get("/api/player/export"))["player"] != player and ok(alice.get("/api/games")) == []
        assert ok(bob.get(f"/api/games/{made['flags']}"))["status"] == "playing"
        members = ok(bob.get(f"/api/rooms/{made['room']}"))["players"]
        assert [member["name"] for member in members] == ["Player", "Bob"]
        assert alice.get(f"/api/games/{made['lost']}").status_code == 404


def test_the_api_deletes_with_its_words_and_both_ways_keep_one_limit(tmp_path):
    with live_server(tmp_path / "games.sqlite3", player_limit=3) as url, client(url) as alice:
        ok(alice.post("/api/games", json=BOARD), 201)
        player = ok(alice.get("/api/player/export"))["player"]
        ok(alice.post("/api/player/delete", json={"confirm": "delete everything"}), 204)
        assert scan(tmp_path / "games.sqlite3", player) == []
        kept = ok(alice.post("/api/games", json=BOARD), 201)["id"]
        ok(alice.get("/api/player/export"))
        # The fourth of the address's exports and deletions is refused, on the page too, and deletes nothing.
        limited = alice.get("/api/player/export")
        assert limited.status_code == 429 and "at most 3 every 600 seconds" in limited.json()["message"]
        page = alice.post("/player/delete", data={"confirm": "yes"})
        assert page.status_code == 429 and "Your player" in page.text
        assert [game["id"] for game in ok(alice.get("/api/games"))] == [kept]


def test_a_link_code_makes_a_device_the_player_and_the_device_brings_its_games_or_leaves_them(server):
    url, database = server
    with client(url) as alice, client(url) as phone, client(url) as tablet:
        kept = ok(alice.post("/api/games", json=BOARD), 201)["id"]
        player = ok(alice.get("/api/player/export"))["player"]
        # The page shows a code and its QR code; the phone enters it on its page, and has no games: it is Alice now.
        shown = alice.post("/player/link-codes")
        assert shown.status_code == 303 and shown.headers["location"] == "/player#link"
        page = alice.get("/player").text
        code = re.search(r'<p class="link-code"><code>([0-9A-Z-]{14})</code>', page).group(1)
        assert "<svg" in page and "QR code of the link" in page
        phone.get("/")  # a player of its own first: its cookie is there to change
        before = dict(phone.cookies)
        assert before
        linked = phone.post("/player/link", data={"code": code.lower()})
        assert linked.status_code == 303 and linked.headers["location"] == "/"
        assert dict(phone.cookies) != before, "a sign-in starts a new session"
        assert [game["id"] for game in ok(phone.get("/api/games"))] == [kept]
        # Used once: a second device cannot link with it.
        again = tablet.post("/player/link", data={"code": code})
        assert again.status_code == 409 and "used already" in again.text

        # The tablet has a game: it is asked, through the API, and brings it along.
        brought = ok(tablet.post("/api/games", json=BOARD), 201)["id"]
        tablet_player = ok(tablet.get("/api/player/export"))["player"]
        fresh = ok(alice.post("/api/player/link-codes"), 201)
        assert fresh["url"].endswith(f"/player/link?code={fresh['code'].replace('-', '')}")
        # The QR code's link fills the code in on the other device's page: entering it is still a button away.
        filled = tablet.get("/" + fresh["url"].split("/", 3)[3])
        assert f'value="{fresh["code"].replace("-", "")}"' in filled.text
        answer = ok(tablet.post("/api/player/link", json={"code": fresh["code"]}))
        assert answer == {"signed_in": False, "choice": True, "next": "/player/join"}
        assert "Bring this device" in tablet.get("/player/join").text
        ok(tablet.post("/api/player/join", json={"bring": True}), 204)
        both = sorted([kept, brought])
        assert sorted(game["id"] for game in ok(tablet.get("/api/games"))) == both
        assert sorted(game["id"] for game in ok(alice.get("/api/games"))) == both
        assert scan(database, tablet_player) == [], "the tablet's player is Alice's now, all of it"
        assert tablet.post("/api/player/join", json={"bring": True}).status_code == 409, "no sign-in waits"

        # A device that leaves its game: Alice's games are as they were, and the device's game stays its old player's.
        with client(url) as laptop:
            left = ok(laptop.post("/api/games", json=BOARD), 201)["id"]
            code = ok(alice.post("/api/player/link-codes"), 201)["code"]
            laptop.post("/player/link", data={"code": code})
            assert laptop.post("/player/join", data={"bring": "no"}).status_code == 303
            assert sorted(game["id"] for game in ok(laptop.get("/api/games"))) == both
            assert left not in {game["id"] for game in ok(alice.get("/api/games"))}
        assert ok(alice.get("/api/player/export"))["player"] == player


def test_a_cross_site_request_does_nothing_to_a_player(server):
    # A page elsewhere that posts with the player's cookie (a browser says so in Sec-Fetch-Site) makes no passkey,
    # no link code, no sign-in, no join and no deletion: the pages' own requests are same-origin.
    url, database = server
    with client(url) as alice:
        ok(alice.post("/api/games", json=BOARD), 201)
        player = ok(alice.get("/api/player/export"))["player"]
        before = scan(database, player)
        elsewhere = {"Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"}
        for path, body in (
            ("/api/player/passkeys/options", None),
            ("/api/player/link-codes", None),
            ("/api/player/sign-in/options", None),
            ("/api/player/join", {"bring": True}),
            ("/api/player/delete", {"confirm": "delete everything"}),
        ):
            assert alice.post(path, json=body, headers=elsewhere).status_code == 403, path
        for path, form in (("/player/delete", {"confirm": "yes"}), ("/player/link-codes", {}), ("/player/join", {})):
            assert alice.post(path, data=form, headers=elsewhere).status_code == 403, path
        assert scan(database, player) == before


def test_passkeys_are_made_for_the_configured_domain_or_else_the_requests_host(tmp_path):
    with live_server(tmp_path / "one.sqlite3", domain="games.example.org") as url, client(url) as behind_caddy:
        options = ok(behind_caddy.post("/api/player/passkeys/options"))
        assert options["rp"] == {"name": "Kaboom", "id": "games.example.org"}
    with live_server(tmp_path / "two.sqlite3") as url, client(url.replace("127.0.0.1", "localhost")) as developer:
        assert ok(developer.post("/api/player/passkeys/options"))["rp"]["id"] == "localhost"
