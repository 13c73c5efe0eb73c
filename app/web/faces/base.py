"""The face every mode wears unless it has its own (app/web/faces/__init__.py says what a face is): the parts of the
page a face may draw, and the class a face is."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel

from app.core.game import Game

PARTS = ("topbar", "panel", "settings", "toolbar")
# Where the faces' scripts and stylesheets are served: static/modes/, and the faces' own folders after it.
STATIC_URL = "/static/modes"


class Face:
    """The default face: the generic board and panel, nothing more."""

    # The parts of the page this face draws itself (PARTS), each from modes/<mode>/<part>.html.
    parts: ClassVar[frozenset[str]] = frozenset()
    # Where the face's templates are when they are not under templates/ (a mode the tests add).
    templates: ClassVar[Path | None] = None
    # The face's scripts (modules) and stylesheets, by file name, each served as /static/modes/<folder>/<name>
    # from static/modes/<folder>/, or from `static` when it is given (a mode the tests add).
    scripts: ClassVar[tuple[str, ...]] = ()
    styles: ClassVar[tuple[str, ...]] = ()
    static: ClassVar[Path | None] = None
    # The face's part of the JSON answer of a game: a field of its own, with its model and description,
    # placed after the field `api_after` names (the answer's fields keep one order).
    api_field: ClassVar[str | None] = None
    api_model: ClassVar[type[BaseModel] | None] = None
    api_description: ClassVar[str] = ""
    api_after: ClassVar[str] = ""

    def __init__(self, folder: str | None = None):
        # Where the face's parts are, under modes/: its mode's own folder unless it wears another's face
        # (cruel Flags wears Flags').
        self.folder = folder

    def template(self, mode: str, part: str) -> str | None:
        """The template of one part of the page, when the face draws it."""
        return f"modes/{self.folder or mode}/{part}.html" if part in self.parts else None

    def urls(self, mode: str, names: tuple[str, ...]) -> list[str]:
        """Where the page loads the face's scripts or stylesheets (`names`: `scripts` or `styles`)."""
        return [f"{STATIC_URL}/{self.folder or mode}/{name}" for name in names]

    def css_class(self, mode: str) -> str:
        """The class of the top bar the face draws: its folder's, so one face's style fits every mode wearing it."""
        return f"{self.folder or mode}-bar"

    def context(self, game: Game, seating: Any) -> dict[str, Any]:
        """What the face's templates read beyond the page's context (`seating`: a game of seats as the
        viewer sees it)."""
        return {}

    def owners(self, game: Game) -> dict[int, int]:
        """Cells shown in a seat's colour (a mine one seat found), by cell."""
        return {}

    def last_move(self, game: Game) -> frozenset[int] | None:
        """The cells the last move uncovered, marked while the game goes on; None where moves are not marked."""
        return None

    def api_part(self, game: Game) -> BaseModel | None:
        """The value of `api_field` in the game's JSON answer."""
        return None
