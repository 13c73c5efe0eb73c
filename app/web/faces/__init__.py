"""How each mode looks beyond the generic board: its face, found by the mode's name.

The game page (templates/game.html) draws what every game has: the board, the status panel, a game
of several seats' turn, invitation and live updates. A mode that shows more — counters of its own, a
line in the panel, its rules in place of the settings, a part of the JSON answer, cells in a seat's
colour — has a face here, and its templates in templates/modes/<mode>/ (`topbar.html`, `panel.html`,
`settings.html`: each part it has replaces or adds to the page's own, inside the page's blocks, so the
fragments HTMX swaps carry it too). A mode without a face looks like every other.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

from jinja2 import BaseLoader, Environment, TemplateNotFound
from pydantic import BaseModel

from app.core.game import Game

PARTS = ("topbar", "panel", "settings")


class Face:
    """The default face: the generic board and panel, nothing more."""

    # The parts of the page this face draws itself (PARTS), each from modes/<mode>/<part>.html.
    parts: ClassVar[frozenset[str]] = frozenset()
    # Where the face's templates are when they are not under templates/ (a mode the tests add).
    templates: ClassVar[Path | None] = None
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


PLAIN = Face()


def face_of(mode: str) -> Face:
    return FACES.get(mode, PLAIN)


class FaceLoader(BaseLoader):
    """Jinja's loader for the templates a registered face keeps outside templates/ (a mode the tests add),
    asked after the templates folder: "modes/<mode>/<part>.html" from the face's own folder."""

    def get_source(self, environment: Environment, template: str) -> tuple[str, str, Callable[[], bool]]:
        path = self._path(template)
        if path is None or not path.is_file():
            raise TemplateNotFound(template)
        modified = path.stat().st_mtime
        return path.read_text(), str(path), lambda: path.stat().st_mtime == modified

    def list_templates(self) -> list[str]:
        return sorted(
            f"modes/{mode}/{path.name}"
            for mode, face in FACES.items()
            if face.templates is not None
            for path in face.templates.glob("*.html")
        )

    @staticmethod
    def _path(template: str) -> Path | None:
        parts = template.split("/")
        if len(parts) != 3 or parts[0] != "modes":
            return None
        face = FACES.get(parts[1])
        return face.templates / parts[2] if face is not None and face.templates is not None else None


# The faces build on Face, above: imported once it exists.
from app.web.faces.flags import FlagsFace  # noqa: E402
from app.web.faces.help import HelpFace  # noqa: E402

FACES: dict[str, Face] = {"flags": FlagsFace(), "cruel-flags": FlagsFace("flags"), "help": HelpFace()}
