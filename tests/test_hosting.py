"""Self-hosting: many workers and hosts, security, limits, time budgets and faults, on real servers."""

from __future__ import annotations

import os
import random
import resource
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import psutil
import pytest

from tests.clock import FakeClock
from tests.live import answers_health, free_port, kaboom_process, live_server, put_position, seconds, wait_until
from tests.redis_server import redis_server

pytestmark = [pytest.mark.server, pytest.mark.subprocess, pytest.mark.redis]

KABOOM = str(Path(sys.executable).with_name("kaboom"))
SECRET = {"KABOOM_SECRET_KEY": "a-long-test-secret-of-32-characters!"}


def new_game(client: httpx.Client, **body) -> dict:
    response = client.post("/api/games", json={"width": 16, "height": 16, "mines": 40, **body})
    assert response.status_code == 201, response.text
    return response.json()


def hammer(url: str, cookies: dict, game_id: str, cells: list) -> list[int]:
    """Flag every cell at once from many clients; each flag is one move."""

    def flag(cell):
        with httpx.Client(base_url=url, cookies=cookies, timeout=seconds(60)) as client:
            return client.post(
                f"/api/games/{game_id}/moves", json={"action": "flag", "x": cell[0], "y": cell[1], "mark": "flag"}
            ).status_code

    with ThreadPoolExecutor(max_workers=24) as pool:
        return list(pool.map(flag, cells))


def test_two_workers_share_games_and_never_lose_a_move(tmp_path):
    with kaboom_process(KABOOM_DATABASE=str(tmp_path / "games.sqlite3"), KABOOM_WORKERS="2", **SECRET) as (_, url):
        with httpx.Client(base_url=url, timeout=seconds(60)) as client:
            game = new_game(client)
            cells = [(x, y) for y in range(6) for x in range(16)]
            assert hammer(url, dict(client.cookies), game["id"], cells) == [200] * len(cells)
            after = client.get(f"/api/games/{game['id']}").json()
            assert after["flags"] == len(cells) and after["moves"] == len(cells)
            # Every worker sees the game: many fresh connections all find it.
            for _ in range(10):
                with httpx.Client(base_url=url, cookies=dict(client.cookies)) as other:
                    assert other.get(f"/api/games/{game['id']}").json()["moves"] == len(cells)


def test_two_hosts_on_one_redis_share_games_one_move_at_a_time(tmp_path):
    with redis_server() as redis_url:
        env = {"KABOOM_STORE": redis_url, **SECRET}
        with kaboom_process(**env) as (_, first), kaboom_process(**env) as (_, second):
            with httpx.Client(base_url=first, timeout=seconds(60)) as client:
                game = new_game(client)
                cookies = dict(client.cookies)
            cells = [(x, y) for y in range(4) for x in range(16)]
            results: dict = {}
            threads = [
                threading.Thread(target=lambda u=url, c=part: results.setdefault(u, hammer(u, cookies, game["id"], c)))
                for url, part in ((first, cells[:32]), (second, cells[32:]))
            ]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(seconds(120))
                assert not thread.is_alive(), "a host did not answer its moves within 120 s"
            assert results[first] == [200] * 32 and results[second] == [200] * 32
            with httpx.Client(base_url=second, cookies=cookies) as client:
                after = client.get(f"/api/games/{game['id']}").json()
            assert after["flags"] == 64 and after["moves"] == 64


def test_cookies_headers_and_cross_site_posts(tmp_path):
    with live_server(tmp_path / "games.sqlite3", secure_cookies=True) as url, httpx.Client(base_url=url) as client:
        response = client.post("/api/games", json={"width": 9, "height": 9, "mines": 10})
        cookie = response.headers["set-cookie"].lower()
        assert "httponly" in cookie and "samesite=lax" in cookie and "secure" in cookie
        page = client.get("/")
        policy = page.headers["content-security-policy"]
        assert "'unsafe-eval'" not in policy and "script-src 'self'" in policy and "frame-ancestors 'none'" in policy
        assert page.headers["x-content-type-options"] == "nosniff"
        assert page.headers["referrer-policy"] == "no-referrer"
        body = {"width": 9, "height": 9, "mines": 10}
        for headers in ({"Sec-Fetch-Site": "cross-site"}, {"Origin": "https://evil.example"}, {"Origin": "null"}):
            refused = client.post("/api/games", json=body, headers=headers)
            assert refused.status_code == 403 and "Cross-site" in refused.json()["detail"]
        form = client.post("/games", data={"preset": "beginner"}, headers={"Sec-Fetch-Site": "cross-site"})
        assert form.status_code == 403 and "Cross-site" in form.text
        allowed = client.post("/api/games", json=body, headers={"Sec-Fetch-Site": "same-origin", "Origin": url})
        assert allowed.status_code == 201


def test_no_layout_reaches_the_client_before_the_end(tmp_path):
    with live_server(tmp_path / "games.sqlite3") as url, httpx.Client(base_url=url) as client:
        game = new_game(client)
        moved = client.post(f"/api/games/{game['id']}/moves", json={"action": "reveal", "x": 8, "y": 8}).json()
        assert "*" not in "".join(moved["board"]) and "layout" not in moved
        page = client.get(f"/games/{game['id']}").text
        assert 'class="c m"' not in page and "exploded" not in page


def test_limits_answer_with_messages_never_500(tmp_path):
    # The clock stands still: the three games and the refused fourth fall in one window, whenever the test runs.
    limits = {"create_limit": 3, "max_body_bytes": 2048, "clock": FakeClock()}
    with live_server(tmp_path / "games.sqlite3", **limits) as url, httpx.Client(base_url=url) as client:
        body = {"width": 9, "height": 9, "mines": 10}
        assert [client.post("/api/games", json=body).status_code for _ in range(3)] == [201] * 3
        limited = client.post("/api/games", json=body)
        assert limited.status_code == 429 and "Too many new games" in limited.json()["detail"]
        page = client.post("/games", data={"preset": "beginner"})
        assert page.status_code == 429 and "Too many new games" in page.text
        big = client.post("/api/games", content=b"{" + b" " * 4096 + b"}", headers={"content-type": "application/json"})
        assert big.status_code == 413 and "larger than 2048 bytes" in big.json()["detail"]

        def chunks():
            yield b'{"width": 9, "height": 9, "mines": 10, "pad": "'
            for _ in range(10):
                yield b"x" * 512
            yield b'"}'

        streamed = client.post("/api/games", content=chunks(), headers={"content-type": "application/json"})
        assert streamed.status_code == 413
        huge = client.post("/api/games", json={"width": 100000, "height": 9, "mines": 10})
        assert huge.status_code == 422


def scattered_state(game_id: str, database: Path) -> None:
    """Replace a stored game by a slow position: a third of a 100x100 board's safe cells revealed at random."""
    from tests.test_rules import scattered_game

    game, _ = scattered_game()
    put_position(database, game_id, game.board.rows(game.cells), game.mines)


def test_a_slow_position_never_blocks_a_click(tmp_path):
    database = tmp_path / "games.sqlite3"
    with live_server(database, solver_seconds=0.05) as url, httpx.Client(base_url=url, timeout=seconds(60)) as client:
        game = client.post("/api/games", json={"width": 100, "height": 100, "mines": 2000}).json()
        scattered_state(game["id"], database)
        analysis = client.get(f"/api/games/{game['id']}/analysis")
        assert analysis.status_code == 503 and "too complex" in analysis.json()["detail"]
        board = client.get(f"/api/games/{game['id']}").json()["board"]
        x, y = next((x, y) for y, row in enumerate(board) for x, symbol in enumerate(row) if symbol == ".")
        moved = client.post(f"/api/games/{game['id']}/moves", json={"action": "reveal", "x": x, "y": y})
        assert moved.status_code == 200
        assert float(moved.headers["server-timing"].split("dur=")[1]) < 5000
        assert client.get("/healthz").status_code == 200


def test_a_damaged_game_answers_clearly_and_others_keep_working(tmp_path):
    database = tmp_path / "games.sqlite3"
    with live_server(database) as url, httpx.Client(base_url=url) as client:
        damaged = new_game(client)
        healthy = new_game(client)
        with sqlite3.connect(database) as connection:
            connection.execute(
                "UPDATE games SET data = 'not json', version = version + 1 WHERE id = ?", (damaged["id"],)
            )
        response = client.get(f"/api/games/{damaged['id']}")
        assert response.status_code == 500 and "damaged" in response.json()["detail"]
        assert "damaged" in client.get(f"/games/{damaged['id']}").text
        assert (
            client.post(f"/api/games/{healthy['id']}/moves", json={"action": "reveal", "x": 1, "y": 1}).status_code
            == 200
        )


def test_an_unusable_database_stops_the_server_with_a_message(tmp_path):
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("")
    result = subprocess.run(
        [KABOOM, "serve", "--database", str(blocker / "games.sqlite3")],
        capture_output=True,
        text=True,
        timeout=seconds(60),
        env={**os.environ, **SECRET},
    )
    assert result.returncode == 2 and "cannot open the database" in result.stderr
    result = subprocess.run(
        [KABOOM, "serve", "--database", str(tmp_path / "ok.sqlite3")],
        capture_output=True,
        text=True,
        timeout=seconds(60),
        env={**os.environ, "KABOOM_GENERATE_SECRET": "false", "KABOOM_SECRET_KEY": ""},
    )
    assert result.returncode == 2 and "KABOOM_SECRET_KEY is not set" in result.stderr


WATCHER = """
import sys
import app.host.server
app.host.server.serve = lambda settings, listener: print(sorted(
    name for name in sys.modules if name.split(".")[0] in ("fastapi", "starlette", "jinja2") or name == "app.web"))
from app.cli import main
sys.exit(main(["serve", "--database", sys.argv[1], "--port", sys.argv[2], "--workers", "2"]))
"""


def test_the_process_watching_the_workers_checks_the_settings_without_loading_the_web_layer(tmp_path):
    """With several workers, `kaboom serve` only starts and watches them: it opens the store and reads the secret
    (a bad setting stops it with its message, as above), and leaves the app to the workers."""
    result = subprocess.run(
        [sys.executable, "-c", WATCHER, str(tmp_path / "games.sqlite3"), str(free_port())],
        capture_output=True,
        text=True,
        timeout=seconds(60),
        env={**os.environ, **SECRET},
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]", result.stdout
    assert (tmp_path / "games.sqlite3").exists()


def test_a_taken_port_stops_the_server_with_a_message_that_names_it_and_how_to_choose_another(tmp_path):
    """Issue 41 #23: `make run` on a taken port said where it would serve, then failed with uvicorn's words."""
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        result = subprocess.run(
            [KABOOM, "serve", "--database", str(tmp_path / "games.sqlite3")],
            capture_output=True,
            text=True,
            timeout=seconds(60),
            env={**os.environ, **SECRET, "KABOOM_HOST": "127.0.0.1", "KABOOM_PORT": str(port)},
        )
    assert result.returncode == 2, result.stderr
    assert f"cannot listen on 127.0.0.1:{port}: port {port} is taken" in result.stderr, result.stderr
    assert "choose another port with KABOOM_PORT" in result.stderr
    assert "Kaboom on http" not in result.stderr and "running on" not in result.stderr.lower(), result.stderr


def test_sigkill_during_play_loses_no_completed_move(tmp_path):
    database = tmp_path / "games.sqlite3"
    env = {"KABOOM_DATABASE": str(database), **SECRET}
    acknowledged: list[int] = []
    with kaboom_process(**env) as (process, url):
        with httpx.Client(base_url=url, timeout=seconds(30)) as client:
            game = new_game(client, width=30, height=16, mines=99)
            cookies = dict(client.cookies)
        stop = threading.Event()

        def play(seed: int):
            rng = random.Random(seed)
            with httpx.Client(base_url=url, cookies=cookies, timeout=seconds(30)) as client:
                while not stop.is_set():
                    try:
                        response = client.post(
                            f"/api/games/{game['id']}/moves",
                            json={"action": "flag", "x": rng.randrange(30), "y": rng.randrange(16)},
                        )
                    except httpx.HTTPError:
                        return
                    if response.status_code == 200:
                        acknowledged.append(response.json()["moves"])

        threads = [threading.Thread(target=play, args=(seed,)) for seed in range(6)]
        for thread in threads:
            thread.start()
        wait_until(lambda: len(acknowledged) >= 60, 60, lambda: f"only {len(acknowledged)} moves answered in 60 s")
        os.kill(process.pid, signal.SIGKILL)  # in the middle of moves
        stop.set()
        for thread in threads:
            thread.join(seconds(60))  # each request has a 30 s timeout
            assert not thread.is_alive()
    with kaboom_process(**env) as (_, url), httpx.Client(base_url=url, cookies=cookies) as client:
        after = client.get(f"/api/games/{game['id']}").json()
        # Every answered move is there; a move cut off before its answer is all there or absent.
        assert after["moves"] >= max(acknowledged)
        undone = client.post(f"/api/games/{game['id']}/moves", json={"action": "undo"})
        assert undone.status_code == 200 and undone.json()["moves"] == after["moves"] + 1
    with sqlite3.connect(database) as connection:
        length = connection.execute("SELECT history_length FROM games WHERE id = ?", (game["id"],)).fetchone()[0]
        records = connection.execute("SELECT COUNT(*) FROM history WHERE game_id = ?", (game["id"],)).fetchone()[0]
    assert length == records  # no half-applied write


def open_files_limit(limit: int):
    """For kaboom_process: start the server with this limit on open files, its hard limit too (so it cannot
    raise it)."""
    return lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))


def port_of(url: str) -> int:
    return int(url.rsplit(":", 1)[1])


def slow_connection(port: int, source: str, first: bytes) -> socket.socket:
    """A connection from `source` (any 127.x address is this machine) that sends `first` and then what the test says."""
    connection = socket.socket()
    connection.bind((source, 0))
    connection.settimeout(10)
    connection.connect(("127.0.0.1", port))
    # Blocking from here on, so that a recv with MSG_DONTWAIT answers at once instead of waiting for the timeout.
    connection.settimeout(None)
    try:
        connection.sendall(first)
    except OSError:
        pass  # already closed by the server: counted below like any closed one
    return connection


def closed_by_server(connection: socket.socket, received: bytearray) -> bool:
    """Whether the server has closed `connection` (keeping what it sent in `received`), without waiting."""
    try:
        while chunk := connection.recv(4096, socket.MSG_DONTWAIT):
            received += chunk
        return True
    except BlockingIOError:
        return False
    except OSError:
        return True


def test_one_client_holding_more_connections_than_the_server_has_files_cannot_starve_another(tmp_path):
    # 300 unfinished requests from one address against a server that may open 256 files: without a cap per
    # client the file descriptors run out and nobody else is answered. The read deadline is long here, so
    # only the cap per client can save the other client.
    env = {
        "KABOOM_DATABASE": str(tmp_path / "games.sqlite3"),
        "KABOOM_READ_TIMEOUT": "120",
        "KABOOM_CONNECTIONS_PER_CLIENT": "20",
    }
    with kaboom_process(preexec_fn=open_files_limit(256), **env, **SECRET) as (_, url):
        slow = [slow_connection(port_of(url), "127.0.0.2", b"GET / HTTP/1.1\r\nHost: kaboom\r\n") for _ in range(300)]
        try:
            with httpx.Client(base_url=url, timeout=seconds(10)) as other:
                for _ in range(10):
                    # A new connection each time, as the busiest proxy-less client would open.
                    assert other.get("/healthz", headers={"Connection": "close"}).status_code == 200
            received = [bytearray() for _ in slow]
            wait_until(
                lambda: sum(not closed_by_server(c, r) for c, r in zip(slow, received, strict=True)) <= 20,
                30,
                "the connections past the cap per client were not closed within 30 s",
                every=0.1,
            )
        finally:
            for connection in slow:
                connection.close()


def test_unfinished_and_idle_connections_are_closed_by_the_read_deadline(tmp_path):
    env = {
        "KABOOM_DATABASE": str(tmp_path / "games.sqlite3"),
        "KABOOM_READ_TIMEOUT": "1",
        "KABOOM_KEEPALIVE_TIMEOUT": "1",
    }
    with kaboom_process(**env, **SECRET) as (_, url):
        port = port_of(url)
        heads = [slow_connection(port, "127.0.0.1", b"GET /healthz HTTP/1.1\r\nHost: kaboom\r\n") for _ in range(5)]
        silent = [slow_connection(port, "127.0.0.1", b"") for _ in range(5)]
        body = slow_connection(
            port,
            "127.0.0.1",
            b"POST /api/games HTTP/1.1\r\nHost: kaboom\r\n"
            b"Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{",
        )
        after_answer = slow_connection(port, "127.0.0.1", b"GET /healthz HTTP/1.1\r\nHost: kaboom\r\n\r\n")
        connections = [*heads, *silent, body, after_answer]
        received = {connection: bytearray() for connection in connections}
        try:
            deadline = time.monotonic() + seconds(30)
            open_ones = list(connections)
            while open_ones:
                assert time.monotonic() < deadline, f"{len(open_ones)} slow connections still open after 30 s"
                for connection in open_ones:
                    # A header line, or a byte of the body, every 0.2 s: never idle, never finished.
                    trickle = b" " if connection is body else b"X-Slow: 1\r\n" if connection in heads else b""
                    try:
                        connection.sendall(trickle)
                    except OSError:
                        pass
                time.sleep(0.2)
                open_ones = [c for c in open_ones if not closed_by_server(c, received[c])]
            for connection in heads:
                assert received[connection].startswith(b"HTTP/1.1 408"), received[connection]
                assert b"did not arrive within 1 seconds" in received[connection]
            assert received[after_answer].startswith(b"HTTP/1.1 200")
            assert all(received[connection] == b"" for connection in silent)
        finally:
            for connection in connections:
                connection.close()
        with httpx.Client(base_url=url, timeout=seconds(10)) as client:
            assert client.get("/healthz").status_code == 200


def lanes_under(pid: int) -> int:
    """The slow lanes among the descendants of process `pid`: the processes at a lower priority."""
    try:
        return sum(child.nice() > 0 for child in psutil.Process(pid).children(recursive=True))
    except psutil.NoSuchProcess:  # a process that ended between the listing and the question
        return 0


def test_workers_stop_when_their_parent_is_killed(tmp_path):
    # The lanes too: each worker's lane is its child, and ends with it.
    env = {"KABOOM_DATABASE": str(tmp_path / "games.sqlite3"), "KABOOM_WORKERS": "2", "KABOOM_SLOW_LANE": "true"}
    with kaboom_process(**env, **SECRET) as (process, url):
        supervisor = psutil.Process(process.pid)
        wait_until(
            lambda: lanes_under(process.pid) == 2,
            60,
            "two workers and their two slow lanes (at a lower priority) did not start within 60 s",
            every=0.1,
        )
        workers = supervisor.children(recursive=True)
        os.kill(process.pid, signal.SIGKILL)
        process.wait(seconds(30))
        _, alive = psutil.wait_procs(workers, timeout=seconds(30))
        assert not alive, f"workers still running 30 s after their parent was killed: {alive}"
        with socket.socket() as probe, pytest.raises(ConnectionRefusedError):
            probe.connect(("127.0.0.1", port_of(url)))


def test_a_stop_ends_the_slow_lanes_and_leaves_nothing_behind(tmp_path):
    from tests.test_rules import scattered_game

    database = tmp_path / "games.sqlite3"
    env = {"KABOOM_DATABASE": str(database), "KABOOM_WORKERS": "2", "KABOOM_SOLVER_SECONDS": "0.5", **SECRET}
    env["KABOOM_SLOW_LANE"] = "true"
    heavy, _ = scattered_game(seed=3, side=100, mines=3000, shown=2100)
    with kaboom_process(**env) as (process, url), httpx.Client(base_url=url, timeout=seconds(60)) as client:
        game_id = new_game(client)["id"]
        put_position(database, game_id, heavy.board.rows(heavy.cells), heavy.mines)
        # A position this big goes to the worker's slow lane, a process at a lower priority that starts with
        # the worker (until it has loaded, such a game plays in the worker's slow thread).
        assert client.get(f"/games/{game_id}").status_code == 200

        wait_until(
            lambda: lanes_under(process.pid),
            60,
            lambda: f"no slow lane at a lower priority: {psutil.Process(process.pid).children(recursive=True)}",
        )
        tree = psutil.Process(process.pid).children(recursive=True)
        process.terminate()
        assert process.wait(seconds(30)) == 0
        _, alive = psutil.wait_procs(tree, timeout=seconds(30))
        assert not alive, f"still running 30 s after the server stopped: {alive}"
        # Each lane's queues were closed, not left to multiprocessing's tracker (which warns about them).
        assert "leaked" not in process.stderr.read()


def test_a_forged_forwarded_for_cannot_dodge_the_creation_limit(tmp_path):
    body = {"width": 9, "height": 9, "mines": 10}
    # A window of an hour: the four games fall in one window however slow the machine.
    limits = {"KABOOM_CREATE_LIMIT": "3", "KABOOM_CREATE_WINDOW": "3600", **SECRET}

    def create(client: httpx.Client, forwarded_for: str) -> int:
        return client.post("/api/games", json=body, headers={"X-Forwarded-For": forwarded_for}).status_code

    # No proxy is trusted by default: the header is ignored and the connection's address counts.
    with kaboom_process(KABOOM_DATABASE=str(tmp_path / "direct.sqlite3"), **limits) as (_, url):
        with httpx.Client(base_url=url) as client:
            assert [create(client, f"198.51.100.{i}") for i in range(4)] == [201, 201, 201, 429]
    # Behind a trusted proxy that appends the address it saw, what the client wrote before it does not count.
    proxied = {"KABOOM_FORWARDED_ALLOW_IPS": "127.0.0.1", **limits}
    with kaboom_process(KABOOM_DATABASE=str(tmp_path / "proxied.sqlite3"), **proxied) as (_, url):
        with httpx.Client(base_url=url) as client:
            assert [create(client, f"198.51.100.{i}, 203.0.113.7") for i in range(4)] == [201, 201, 201, 429]
            # Another client behind the same proxy has its own allowance.
            assert create(client, "203.0.113.8") == 201
            # An IPv6 client is one client across its /64.
            assert [create(client, f"2001:db8:5:6::{i}") for i in range(1, 5)] == [201, 201, 201, 429]


def test_past_the_connection_ceiling_a_request_gets_503_and_then_connections_are_closed(tmp_path):
    env = {"KABOOM_DATABASE": str(tmp_path / "games.sqlite3"), "KABOOM_MAX_CONNECTIONS": "5"}
    with kaboom_process(**env, **SECRET) as (_, url):
        # Four clients, one connection each (well under the cap per client), sending nothing yet.
        idle = [slow_connection(port_of(url), f"127.0.0.{i}", b"") for i in range(2, 6)]
        try:
            with httpx.Client(base_url=url, timeout=seconds(10)) as client:
                busy = client.get("/healthz", headers={"Connection": "close"})
                assert busy.status_code == 503 and busy.text == "Service Unavailable"
                idle.append(slow_connection(port_of(url), "127.0.0.6", b""))
                with pytest.raises(httpx.TransportError):
                    client.get("/healthz")
            for connection in idle:
                connection.close()
            # Not at once: the server may not have seen the others leave yet.
            wait_until(
                lambda: answers_health(url, timeout=seconds(10)),
                30,
                "no answer 30 s after the other connections were closed",
                every=0.1,
            )
        finally:
            for connection in idle:
                connection.close()


def test_a_proxy_setting_that_is_no_address_stops_the_server_with_a_message(tmp_path):
    for value, message in (("*", "would let every client choose"), ("proxy.example", "is not an IP address")):
        result = subprocess.run(
            [KABOOM, "serve", "--database", str(tmp_path / "games.sqlite3")],
            capture_output=True,
            text=True,
            timeout=seconds(60),
            env={**os.environ, **SECRET, "KABOOM_FORWARDED_ALLOW_IPS": value},
        )
        assert result.returncode == 2 and message in result.stderr, result.stderr
