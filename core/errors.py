"""Exceptions shared by the whole core. Each carries a one-line, user-facing message."""


class GmdeskError(Exception):
    """Base class: ``str(err)`` is one line a GM can act on."""


class ParamError(GmdeskError, ValueError):
    """A roll or odds parameter is out of range; names the option and what is allowed."""

    def __init__(self, option: str, message: str):
        self.option = option
        self.message = message
        super().__init__(f"{option}: {message}")


class TableError(GmdeskError, ValueError):
    """A descriptor table (shipped or the GM's own) is malformed."""


class SheetError(GmdeskError, ValueError):
    """A 1d6x4 descriptor sheet cannot be read."""
