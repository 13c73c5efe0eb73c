"""Configuration: every setting can come from a KABOOM_ environment variable."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="KABOOM_", env_file=".env", extra="ignore")

    database: Path = Field(Path("data/kaboom.sqlite3"), description="the SQLite file that keeps every game")
    secret_key: str | None = Field(
        None, description="signs the player cookie; generated and kept beside the database when not set"
    )
    host: str = "127.0.0.1"
    port: int = 8000
    secure_cookies: bool = Field(False, description="send the cookie over HTTPS only (behind a TLS proxy)")
    solver_seconds: float = Field(2.0, description="time a click may spend counting layouts before a SAT layout is used")

    def signing_key(self) -> str:
        """The configured secret, or one generated on the first run and kept for the next ones."""
        if self.secret_key:
            return self.secret_key
        path = self.database.parent / "secret_key"
        if path.exists():
            return path.read_text().strip()
        path.parent.mkdir(parents=True, exist_ok=True)
        key = secrets.token_urlsafe(32)
        # Only the owner may read it: anyone with the key can sign a cookie for any player.
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w") as file:
            file.write(key + "\n")
        return key
