"""Ask for help's face: the Help button in the toolbar, its script (static/modes/help/help.js: the button
and its key, A), and the game's part of the JSON answer (how often help was granted and used)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from app.core.game import Game
from app.web.faces.base import Face


class HelpOut(BaseModel):
    granted: int
    used: int
    pending: bool = Field(description="granted and not yet used: the next cell opened is safe")


class HelpFace(Face):
    parts = frozenset({"toolbar"})
    scripts = ("help.js",)
    api_field = "help"
    api_model = HelpOut
    api_description = "help games: how often help was granted and used, and whether it is waiting"
    api_after = "options"

    def api_part(self, game: Game) -> HelpOut:
        state = game.state
        return HelpOut(granted=state["help_granted"], used=state["help_used"], pending=state["help_pending"])
