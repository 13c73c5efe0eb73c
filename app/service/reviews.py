"""The operations on finished games: a game's review (graded once, at its end when that is quick), the replay's
overlays step by step, and sharing a replay by a link. A finished game's story shows its board, so a feature
whose players still compete on that board keeps it from them (Hooks.replay_seals)."""

from __future__ import annotations

from app.core.game import Game, Invalid, Refused
from app.core.languages import lazy_gettext
from app.core.seats import new_share_key
from app.results.review import Review, frame_at, kept_review, review, steps_in
from app.service.context import Context
from app.service.hooks import GameEnd
from app.service.overlays import Overlay, overlay
from app.service.runner import SlowGame, operation
from app.store import NotFound
from solver import Analyzer, Limits

# How long the move that ends a game may spend grading it (app.results.review), on top of the move: a classic Expert
# game takes about 0.03 s, a 100x100 one 0.7 s (bench/review.py); a longer one is graded when its review is
# first asked for.
REVIEW_AT_END_SECONDS = 1.0
# A finished game of this many cells is graded, and its replay's overlays worked out, where slow work runs:
# the story of a big board is long (a 100x100 game has thousands of steps).
SLOW_REVIEW_CELLS = 2500


class InPlay(NotFound):
    """A finished game's story asked of a game still in play, by someone who may open the game: nothing of it
    shows before its end (the API answers as for no such game); the page says when the replay opens."""


class ReviewOperations:
    def __init__(self, context: Context):
        self.context = context
        self.store = context.store
        self.runner = context.runner
        self.hooks = context.hooks
        self.hooks.ending.append(self._grade_at_end)

    def _grade_at_end(self, end: GameEnd) -> None:
        """Grade a game that just ended, once, while its last move is saved with it (its result then has its
        accuracy), if that fits in REVIEW_AT_END_SECONDS: a game too long for that is graded when its
        review is first asked for."""
        graded = review(end.after, Limits.starting_now(REVIEW_AT_END_SECONDS, self.context.settings.solver_work))
        if not graded.cut:
            end.after.review = graded.kept()

    async def review(self, game_id: str, viewer: str, asker: str | None = None) -> tuple[Game, Review]:
        """A finished game's review: the one it keeps, or graded now within the request's time and kept.
        NotFound for a game in play, as for one the viewer may not open: nothing of it shows before its end.
        `asker`: whose cookie asks, when `viewer` is a link's credential (see _finished)."""
        return await self.runner.run("review", game_id, viewer, asker)

    @operation("review")
    def _review_game(self, game_id: str, viewer: str, asker: str | None = None) -> tuple[Game, Review]:
        game = self._finished(game_id, viewer, asker)
        kept = kept_review(game)
        if kept is not None:
            return game, kept
        if self.runner.on_cheap_thread() and len(game.cells) >= SLOW_REVIEW_CELLS:
            raise SlowGame(game_id)
        graded = review(game, self.context.limits())
        # Kept even with positions graded too complex in time: a game is graded once.
        game.review = graded.kept()
        game.version += 1
        self.store.save(game_id, viewer, game, game.version - 1)
        return game, graded

    async def replay_overlay(
        self, game_id: str, viewer: str, step: int, asker: str | None = None
    ) -> tuple[Game, Game, Overlay]:
        """What could be known after `step` steps of a finished game's story (0: before the first), as the
        overlays show it: every covered cell's status and chance of a mine. (The game, the frame, its overlay.)"""
        return await self.runner.run("replay-overlay", game_id, viewer, step, asker)

    @operation("replay-overlay")
    def _replay_overlay(
        self, game_id: str, viewer: str, step: int, asker: str | None = None
    ) -> tuple[Game, Game, Overlay]:
        game = self._finished(game_id, viewer, asker)
        frame = frame_at(game, step)
        if frame is None:
            raise Invalid(
                lazy_gettext("step %(step)s: this game's story has steps 0 to %(last)s", step=step, last=steps_in(game))
            )
        if self.runner.on_cheap_thread() and len(game.cells) >= SLOW_REVIEW_CELLS:
            raise SlowGame(game_id)
        return game, frame, overlay(Analyzer(frame.position()), frame, self.context.limits(), everything=True)

    def _finished(self, game_id: str, viewer: str, asker: str | None = None) -> Game:
        """The game, once it has ended, for `viewer` (a player, or a link's credential): its story shows its board,
        so a board players still compete on stays hidden from whoever still competes (`asker`, the person behind
        a link, is that person; the game's own player always sees it)."""
        game = self.store.load(game_id, viewer)
        if game.status == "playing":
            raise InPlay(game_id)
        person = asker if asker is not None else viewer
        if person != game.maker:
            refusal = self.hooks.first_refusal(self.hooks.replay_seals, game, person)
            if refusal is not None:
                raise Refused(refusal)
        return game

    async def share(self, game_id: str, player: str, shared: bool) -> Game:
        """Share a finished game's replay by a new link (kept while shared), or withdraw it; its maker only."""
        return await self.runner.run("share", game_id, player, shared)

    @operation("share")
    def _share(self, game_id: str, player: str, shared: bool) -> Game:
        game = self.store.load(game_id, player)
        if player != game.maker:
            raise Refused(lazy_gettext("only the player who made the game may share its replay"))
        if game.status == "playing":
            raise Refused(lazy_gettext("the game is still in play: its replay can be shared once it has ended"))
        if (game.share is not None) == shared:
            return game
        if not shared:
            refusal = self.hooks.first_refusal(self.hooks.share_keepers, game_id, game)
            if refusal is not None:
                raise Refused(refusal)
        new = game.copy()
        new.share = new_share_key() if shared else None
        new.version += 1
        self.store.save(game_id, player, new, game.version)
        return new
