"""Python stack dumps on SIGUSR1, which pai-launch sends to a hung instance.

pai-launch signals only processes that catch SIGUSR1 (SigCgt in /proc/PID/status): with
the default disposition the signal would kill the rank instead.
"""

import faulthandler
import signal
import sys
import threading

_lock = threading.Lock()
_registered = False


def enable_stack_dumps(file=None) -> bool:
    """Writes the stacks of all threads to `file` (default: sys.stderr) whenever the
    process receives SIGUSR1, and carries on running.

    Leaves a SIGUSR1 handler installed by the program or a library alone. Returns whether
    stack dumps are enabled; False when another handler has SIGUSR1 or `file` has no file
    descriptor (as in some notebooks). Never raises.
    """
    global _registered
    with _lock:
        if signal.getsignal(signal.SIGUSR1) != signal.SIG_DFL:
            return False  # a Python handler, or SIG_IGN
        if not _registered and _caught_outside_python(signal.SIGUSR1):
            return False  # a C library's handler, invisible to the signal module
        try:
            if _registered:
                # Unregister first: if the program reset SIGUSR1 to its default since, a
                # plain register() would believe the handler were still installed.
                faulthandler.unregister(signal.SIGUSR1)
            # chain=False: chaining to the default disposition would terminate the process.
            faulthandler.register(signal.SIGUSR1, file=file or sys.stderr, all_threads=True,
                                  chain=False)
        except (AttributeError, OSError, RuntimeError, ValueError):
            _registered = False
            return False
        _registered = True
        return True


def _caught_outside_python(signum: int) -> bool:
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("SigCgt:"):
                    return bool(int(line.split()[1], 16) >> (signum - 1) & 1)
    except (OSError, ValueError, IndexError):
        pass
    return False
