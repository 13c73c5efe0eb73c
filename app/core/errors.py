"""The domain's errors: one base for everything the rules, the service or the store refuse or cannot do.

Each says what happened in words for whoever asked (`message`): the JSON API's detail, the page's
message line, the command line's one line. The web layer answers every KaboomError by one table from
its kind to a status (app/web/errors.py); a command prints its message and exits with status 2.
"""

from __future__ import annotations

from app.core.languages import Text


class KaboomError(Exception):
    """What the game, the service or the store refuse or cannot do now; nothing was changed.

    `message` reads in the language of whoever reads it (a Text, app.core.languages) or is plain English; either
    way `str(error.message)` is what to show, and the JSON API's `detail` stays English."""

    def __init__(self, message: str | Text):
        super().__init__(message)
        self.message = message
