import os

from hypothesis import HealthCheck, settings

# Solver calls vary in time with the machine's load; correctness, not speed, is
# what these tests check. CI runs the same examples every time; "stress" is for
# a long bug hunt by hand: KABOOM_HYPOTHESIS=stress make test.
settings.register_profile("default", deadline=None, suppress_health_check=[HealthCheck.too_slow], max_examples=400)
settings.register_profile("ci", parent=settings.get_profile("default"), derandomize=True)
settings.register_profile("stress", parent=settings.get_profile("default"), max_examples=5000)
settings.load_profile(os.environ.get("KABOOM_HYPOTHESIS") or ("ci" if os.environ.get("CI") else "default"))
