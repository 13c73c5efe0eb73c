"""Injected time: tests move it instead of sleeping."""

from __future__ import annotations


class FakeClock:
    """Time that moves only when a test moves it."""

    def __init__(self, start: float = 1_700_000_000.0):
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds
