import os

from hypothesis import HealthCheck, settings

# Solver calls vary in time with the machine's load; correctness, not speed, is
# what these tests check. CI runs the same examples every time.
settings.register_profile(
    "default", deadline=None, suppress_health_check=[HealthCheck.too_slow], max_examples=200
)
settings.register_profile("ci", parent=settings.get_profile("default"), derandomize=True)
settings.load_profile("ci" if os.environ.get("CI") else "default")
