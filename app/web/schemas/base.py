"""What every request and answer of the API shares: strict bodies, the error answer, the errors every route
may answer."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

# What every request body shares: no field the API does not know, and no conversions: pydantic
# would otherwise read true as 1, 9.0 as 9 and "9" as 9, so a slip in a script could play a move.
STRICT = ConfigDict(extra="forbid", strict=True)


def _joined(notes: list[str]) -> str | None:
    return "; ".join(notes) or None


class ErrorOut(BaseModel):
    # A sentence for refusals (a body that is not strict JSON too); a list of field errors when
    # the JSON is well formed but a field does not fit the request's shape.
    detail: str | list[dict[str, Any]] = Field(
        description="what was refused, in English, the same whatever the language asked for: for scripts to read"
    )
    message: str = Field(
        description="the same for a person, as a sentence in the language of the request's Accept-Language "
        "(English, Russian, Hungarian or Arabic, as the server offers them)"
    )


ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    403: {"model": ErrorOut, "description": "a cross-site request from a browser"},
    404: {"model": ErrorOut, "description": "no such game for this player"},
    409: {
        "model": ErrorOut,
        "description": "the rules refuse the move, or another request changed the game at the same moment; "
        "nothing changed",
    },
    413: {"model": ErrorOut, "description": "the request body is too large"},
    422: {
        "model": ErrorOut,
        "description": "not a valid request: a body that is not strict JSON (NaN, Infinity, numbers out of range "
        'and lone surrogates are refused), a field of the wrong type (true is not a number, nor is 9.0 or "9"), '
        "or a move that makes no sense on this board",
    },
    500: {
        "model": ErrorOut,
        "description": "the stored game is damaged (other games are unaffected), or the server failed unexpectedly",
    },
    503: {"model": ErrorOut, "description": "the position is too complex to analyse within the time limit"},
}
