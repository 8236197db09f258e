"""Holding an optimizer's next step() until a checkpoint's background copy is done.

save_async(state, step, optimizer=opt) copies the tensors that opt changes in place (its
parameters, and its state: momentum, Adam's moments and step) in a background thread, while
the forward and backward passes go on: they only read them. opt.step() is where they change,
so the next call of opt.step() first waits for the copy. Every other tensor of the state is
copied before save_async returns, as without an optimizer.

The guard is installed once per optimizer and stays: with torch >= 2.0 as a step pre-hook,
before that as a bound method on the instance that calls what opt.step was before (an LR
scheduler created later wraps it like the original). Without a copy in flight it costs one
attribute read per step.
"""

import threading
import time
import types
from typing import Any, List, Optional, Set, Tuple

# Set on an optimizer once its step() is guarded.
_GUARDED = "_pai_checkpoint_guarded"


class CopyGate:
    """One background copy: open() once every guarded tensor is copied (or the copy
    failed). waited: seconds the guarded optimizers' step() calls spent waiting for it."""

    def __init__(self) -> None:
        self._copied = threading.Event()
        self.waited = 0.0

    def open(self) -> None:
        self._copied.set()

    def is_open(self) -> bool:
        return self._copied.is_set()

    def wait(self, timeout: Optional[float] = None) -> bool:
        return self._copied.wait(timeout)


# The copy in flight that guarded steps wait for (one save in flight per process).
_current: Optional[CopyGate] = None


def optimizers_of(value: Any) -> List[Any]:
    """`value` (None, an optimizer, or a list or tuple of them) as a list. Raises TypeError
    for anything that has no param_groups, state and step()."""
    if value is None:
        return []
    candidates = list(value) if isinstance(value, (list, tuple)) else [value]
    for candidate in candidates:
        if not (hasattr(candidate, "param_groups") and hasattr(candidate, "state")
                and callable(getattr(candidate, "step", None))):
            raise TypeError("pai.checkpoint: optimizer= takes a torch.optim.Optimizer (or a "
                            "list of them), got {!r}".format(type(candidate).__name__))
    return candidates


def storage_key(tensor: Any) -> Tuple[str, int]:
    """What tells tensors that share memory: the device and the address of the storage
    (a parameter, its state_dict() view and any other view of it have the same)."""
    storage = (tensor.untyped_storage() if hasattr(tensor, "untyped_storage")
               else tensor.storage())
    return str(tensor.device), storage.data_ptr()


def guarded_storages(optimizers: List[Any]) -> Set[Tuple[str, int]]:
    """The storages that the optimizers' step() changes: their parameters and the tensors of
    their per-parameter state."""
    keys = set()
    for optimizer in optimizers:
        for group in optimizer.param_groups:
            for parameter in group["params"]:
                keys.add(storage_key(parameter))
        for per_parameter in optimizer.state.values():
            values = per_parameter.values() if isinstance(per_parameter, dict) else ()
            for value in values:
                if hasattr(value, "untyped_storage") or hasattr(value, "storage"):
                    keys.add(storage_key(value))
    return keys


def hold(optimizers: List[Any], gate: CopyGate) -> None:
    """Makes the optimizers' next step() wait until `gate` is open."""
    global _current
    for optimizer in optimizers:
        _install(optimizer)
    _current = gate


def release() -> None:
    """Forgets the copy in flight (a forked child, tests)."""
    global _current
    _current = None


def _wait_before_step() -> None:
    gate = _current
    if gate is None or gate.is_open():
        return
    start = time.monotonic()
    gate.wait()
    gate.waited += time.monotonic() - start


def _install(optimizer: Any) -> None:
    if getattr(optimizer, _GUARDED, False):
        return
    if hasattr(optimizer, "register_step_pre_hook"):  # torch >= 2.0
        optimizer.register_step_pre_hook(lambda *_: _wait_before_step())
    else:
        inner = optimizer.step  # the class's, or a wrapper (an LR scheduler's) on the instance

        def step(self: Any, *args: Any, **kwargs: Any) -> Any:
            _wait_before_step()
            return inner(*args, **kwargs)

        # A bound method, as the original: torch's LR schedulers wrap optimizer.step and need
        # its __self__ and __func__.
        optimizer.step = types.MethodType(step, optimizer)
    setattr(optimizer, _GUARDED, True)
