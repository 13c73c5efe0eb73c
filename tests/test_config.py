"""Settings: the secret key stays secret wherever the settings are printed."""

from app.core.config import Settings

SECRET = "a-long-secret-that-must-not-be-printed"


def test_the_secret_key_never_shows_in_a_repr_or_a_dump(tmp_path):
    settings = Settings(secret_key=SECRET, database=tmp_path / "games.sqlite3")
    assert SECRET not in repr(settings) and SECRET not in str(settings.model_dump())
    assert settings.signing_key() == SECRET
