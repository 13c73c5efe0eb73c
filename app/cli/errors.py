"""What every command shares: bad input is one line on stderr and exit status 2; the settings read as the server
reads them; a count given on the command line."""

import argparse
from collections.abc import Iterator
from contextlib import contextmanager

from app.core.errors import KaboomError

EXIT_BAD_INPUT = 2


class BadInput(KaboomError):
    """Input the command cannot answer: printed as one line, exit status 2."""


@contextmanager
def settings_checked() -> Iterator[None]:
    """A setting that does not fit (KABOOM_ variables, the store it names) as BadInput, saying which."""
    from pydantic import ValidationError

    from app.core.config import ConfigurationError

    try:
        yield
    except ValidationError as error:
        problems = "; ".join(f"KABOOM_{'_'.join(map(str, e['loc'])).upper()}: {e['msg']}" for e in error.errors())
        raise BadInput(f"bad setting: {problems}") from None
    except ConfigurationError as error:
        raise BadInput(str(error)) from None


def positive(text: str) -> int:
    """A count of at least 1, for argparse."""
    try:
        number = int(text)
    except ValueError:
        number = 0
    if number < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {text!r}")
    return number
