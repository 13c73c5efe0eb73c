"""Configuration: every setting can come from a KABOOM_ environment variable."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from app.core.errors import KaboomError
from app.core.languages import offered_codes


class ConfigurationError(KaboomError):
    """A setting that keeps the server from starting; the message says which and why."""


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="KABOOM_", env_file=".env", extra="ignore")

    database: Path = Field(Path("data/kaboom.sqlite3"), description="the SQLite file that keeps every game")
    store: str | None = Field(
        None, description="redis://host:port/db to keep games in Redis, shared by several servers; SQLite when unset"
    )
    # SecretStr: a repr or a log line of the settings shows "**********", never the key.
    secret_key: SecretStr | None = Field(None, description="signs the player cookie")
    generate_secret: bool = Field(
        True, description="without KABOOM_SECRET_KEY, generate one and keep it beside the database (off in Docker)"
    )
    host: str = Field("127.0.0.1", description="the address to listen on (0.0.0.0 for every interface)")
    port: int = Field(8000, ge=1, le=65535, description="the port to listen on")
    workers: int = Field(1, ge=1, le=64, description="server processes; they share games through the store")
    secure_cookies: bool = Field(False, description="send the cookie over HTTPS only (behind a TLS proxy)")
    domain: str = Field(
        "",
        pattern=r"^$|^:80$|^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$",
        description="the public host name players reach (games.example.org, as Caddy's KABOOM_DOMAIN): passkeys are "
        'made for it, over HTTPS; empty (or Caddy\'s ":80"): for the host name each request names (localhost)',
    )
    # Nobody by default: a proxy's address must be named, or any client on the host could say who it is.
    forwarded_allow_ips: str = Field(
        "",
        description="addresses or networks of the proxies whose X-Forwarded-For/-Proto are believed (comma-separated)",
    )
    solver_seconds: float = Field(
        2.0,
        gt=0,
        description="wall-clock time one request may spend on the solver, verdict, deal and overlay together; "
        "a last guard, logged when it decides a click",
    )
    solver_work: int = Field(
        4_000_000,
        ge=10_000,
        description="solver work (machine-independent units, about 0.06 microseconds each on a 2-core machine) "
        "a click's verdict may take; past it the click is judged as a guess, the same way on any machine and "
        "under any load",
    )
    lease_seconds: float = Field(
        2.0,
        gt=0,
        description="Redis only: how long a move's hold on its game lasts unless renewed; a server killed mid-move "
        "delays that game's next move by at most this",
    )
    redis_timeout: float = Field(
        2.0, gt=0, description="Redis only: seconds to wait for Redis before a request answers 503"
    )
    slow_lane: bool = Field(
        True,
        description="play games whose requests are slow in a process of their own at a lower priority "
        "(SQLite and Redis stores), so that they take no processor time from cheap clicks",
    )
    cache_megabytes: int = Field(
        64,
        ge=1,
        description="memory each worker may keep in live games' analyzers (a click then costs only its change); "
        "undo histories add at most a quarter of it",
    )
    max_body_bytes: int = Field(16_384, ge=1024, description="largest request body accepted")
    games_per_player: int = Field(100, ge=1, description="games kept per player; past it old finished games go first")
    idle_days: float = Field(30, gt=0, description="games untouched for this many days are deleted")
    computer_pause: float = Field(
        0.8,
        ge=0,
        le=10,
        description="seconds the Flags computer waits before each move, so that a player can follow its moves",
    )
    rooms_per_player: int = Field(
        10, ge=1, description="rooms one player may be in at once (co-op rooms and races); leaving one frees a place"
    )
    room_limit: int = Field(10, ge=1, description="new rooms a client address may open per create_window seconds")
    race_countdown: float = Field(
        3, ge=0, le=30, description="seconds between a race's start and its boards opening, shown as a countdown"
    )
    create_limit: int = Field(30, ge=1, description="new games a client may start per create_window seconds")
    create_window: float = Field(60, gt=0, description="the window, in seconds, that create_limit counts in")
    no_guess_limit: int = Field(
        20,
        ge=1,
        description="no-guess boards one client address may have dealt per no_guess_window seconds (each first click "
        "of a no-guess game, and each again after undoing it, searches for a board: up to a second of processor time)",
    )
    no_guess_window: float = Field(60, gt=0, description="the window, in seconds, that no_guess_limit counts in")
    player_limit: int = Field(
        10,
        ge=1,
        description="exports and deletions of a player's data one client address may ask per player_window seconds "
        "(an export reads every game the player has)",
    )
    player_window: float = Field(600, gt=0, description="the window, in seconds, that player_limit counts in")
    sign_in_limit: int = Field(
        20,
        ge=1,
        description="passkey ceremonies (to sign in, or to add a passkey) and link codes entered one client address "
        "may begin per player_window seconds: what bounds guessing a link code",
    )
    read_timeout: float = Field(
        10,
        gt=0,
        description="seconds a client has to send a whole request, from connecting or from the previous answer",
    )
    keepalive_timeout: float = Field(5, gt=0, description="seconds an idle connection is kept open after an answer")
    connections_per_client: int = Field(
        50, ge=1, description="open connections one client address may hold on one worker; more are closed at once"
    )
    requests_per_client: int = Field(
        2,
        ge=1,
        description="requests of one client address worked on at once by one worker; its others wait their turn "
        "(as many as it may hold connections; past that, 429), so that one client's flood slows itself, not "
        "everyone",
    )
    max_connections: int = Field(
        1000, ge=1, description="open connections per worker (kept under the open-files limit); past it, 503 or closed"
    )
    live_streams: int = Field(
        400,
        ge=1,
        description="live pages' event streams per worker; "
        "past it a stream is refused (503) and its page polls instead",
    )
    live_streams_per_client: int = Field(
        24,
        ge=1,
        description="live pages' event streams one client address may hold on one worker; "
        "past it, 429 and the page polls",
    )
    # Every language with a whole catalog (tests/test_languages.py); a host may offer fewer.
    languages: str = Field(
        "en,ru,hu,ar",
        description="the languages the pages are offered in, comma-separated among en, ru, hu, ar (English "
        "always): a page follows the browser's Accept-Language, and the header's switcher lists them",
    )

    @field_validator("languages")
    @classmethod
    def _known_languages(cls, value: str) -> str:
        return ",".join(offered_codes(value))

    @field_validator("store")
    @classmethod
    def _redis_only(cls, value: str | None) -> str | None:
        if value and not value.startswith(("redis://", "rediss://", "unix://")):
            raise ValueError("KABOOM_STORE must be a redis:// URL (leave it unset for SQLite)")
        return value or None

    def signing_key(self) -> str:
        """The configured secret, or one generated on the first run and kept for the next ones."""
        configured = self.secret_key.get_secret_value() if self.secret_key else ""
        if configured:
            if len(configured) < 16:
                raise ConfigurationError("KABOOM_SECRET_KEY is too short: use at least 16 random characters")
            return configured
        if not self.generate_secret:
            raise ConfigurationError(
                "KABOOM_SECRET_KEY is not set: it signs the player cookies, so it must be given (for example "
                "`python -c 'import secrets; print(secrets.token_urlsafe(32))'`)"
            )
        path = self.database.parent / "secret_key"
        try:
            if path.exists():
                return path.read_text().strip()
            path.parent.mkdir(parents=True, exist_ok=True)
            key = secrets.token_urlsafe(32)
            # Only the owner may read it: anyone with the key can sign a cookie for any player.
            descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(descriptor, "w") as file:
                file.write(key + "\n")
            return key
        except OSError as error:
            raise ConfigurationError(f"cannot keep the generated secret key in {path}: {error}") from None
