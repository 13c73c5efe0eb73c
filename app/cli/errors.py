"""What every command shares: bad input is one line on stderr and exit status 2."""

from app.core.errors import KaboomError

EXIT_BAD_INPUT = 2


class BadInput(KaboomError):
    """Input the command cannot answer: printed as one line, exit status 2."""
