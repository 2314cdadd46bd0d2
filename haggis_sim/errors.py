"""Exceptions of the public API.

Two kinds of failure are kept apart. :class:`InputError` (and its subclasses) is input a
person must correct — a bad option, spec, file or folder — and the command line reports
it in one line with status 2. Anything else is a fault of the program (or of the
machine) and keeps its traceback, so a bug is never blamed on the user.
"""

from __future__ import annotations


class InputError(ValueError):
    """Input that a person must correct; the message says what and how."""


class IllegalAction(InputError):
    """An action that the rules do not allow now; the state is left unchanged."""
