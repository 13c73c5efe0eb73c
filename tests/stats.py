"""The statistical check of the tests that deal: does a sample follow the law it should?"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Mapping


def assert_follows(seen: Counter, weights: Mapping[Hashable, int]) -> None:
    """`seen` (outcome -> times) drawn from the law that gives each outcome its weight: nothing outside
    the law, and a chi-square within six standard deviations of its mean (the samples come from fixed
    seeds, so a pass is not luck: the same run always passes)."""
    assert set(seen) <= set(weights), sorted(set(seen) - set(weights))
    samples, total = sum(seen.values()), sum(weights.values())
    chi_square = sum((seen[k] - samples * n / total) ** 2 / (samples * n / total) for k, n in weights.items())
    degrees = len(weights) - 1
    assert chi_square < degrees + 6 * (2 * degrees) ** 0.5, (seen, weights)
