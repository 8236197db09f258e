"""Which hang interval a process has asked for: a base and the open hang_detect scopes.

Pure bookkeeping, no I/O: the caller sends what these methods return and serialises the
calls. Intervals are kept as the argument of a ``hang-interval`` request: ``"180"``,
``"off"`` or ``"default"``.
"""

from typing import List, Optional, Tuple

#: The job spec's hang interval (``faultTolerance.hang.interval``).
DEFAULT = "default"
#: No hang detection.
OFF = "off"


class HangScopes:
    """The base interval and the stack of open scopes of one process.

    The interval in force is that of the most recently opened scope still open, whichever
    thread opened it, else the base. Closing that scope hands over to the next most recent
    one (or the base); closing an older scope, possible when threads interleave, changes
    nothing until the newer ones close.
    """

    def __init__(self) -> None:
        #: What reset_config last set, restored when the last scope closes.
        self.base = DEFAULT
        self._open: List[Tuple[object, str]] = []  # (token, interval), oldest first

    def current(self) -> str:
        """The interval in force."""
        return self._open[-1][1] if self._open else self.base

    def open(self, interval: str) -> object:
        """Opens a scope with `interval`, now in force. Returns its token for close()."""
        token = object()
        self._open.append((token, interval))
        return token

    def close(self, token: object) -> Optional[str]:
        """Closes the scope of `token`. Returns the interval now in force when the closed
        scope was the one in force, else None (nothing to send)."""
        for index, (open_token, _) in enumerate(self._open):
            if open_token is token:
                was_in_force = index == len(self._open) - 1
                del self._open[index]
                return self.current() if was_in_force else None
        return None
