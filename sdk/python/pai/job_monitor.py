"""Talking to pai-launch from training code, under the names of PAI-DLC's AIMaster.

    from aimaster import job_monitor as jm      # or: from pai import job_monitor as jm

    monitor = jm.Monitor(config=jm.PyTorchConfig(job_hang_interval=600))
    monitor.instrument(ddp_model)               # collectives into the telemetry ring
    monitor.report_step(step)                   # training made progress
    if monitor.should_checkpoint(step):         # the planned interval has passed
        save_checkpoint(...)
    st = monitor.send_custom_message(content="loss is NaN")
    if not st.ok():
        print(st.to_string())

    @jm.hang_detect(1800)                       # evaluation may be silent for 30 minutes
    def evaluate(): ...

Each call is one or more requests on the launcher's control socket (PAI_CONTROL_SOCKET).
No call raises into training code: a failure (the launcher gone, a refused request, no
reply within 2 s, a bad argument) comes back as a Status whose ok() is false, and is
reported once per distinct problem as a MonitorWarning. Outside pai-launch
(PAI_CONTROL_SOCKET not set) calls send nothing and return an ok Status, after one
MonitorWarning per process.

All Monitors of a process share one connection and one hang-interval state: the launcher
keeps a single hang interval per instance.

Importing this module enables Python stack dumps on SIGUSR1 (see enable_stack_dumps),
when imported in the main thread.
"""

import functools
import inspect
import math
import operator
import os
import threading
import time
import warnings
from typing import Any, Iterable, List, Optional, Tuple, Union

from . import _control, telemetry
from ._hang_scopes import OFF, HangScopes
from ._stack_dumps import enable_stack_dumps

__all__ = [
    "Monitor",
    "MonitorWarning",
    "PyTorchConfig",
    "Status",
    "TFConfig",
    "enable_stack_dumps",
    "hang_detect",
    "report_step",
    "reset_config",
    "send_custom_message",
    "set_retryable_errors",
    "should_checkpoint",
]


class Status:
    """The outcome of a call: ok() or not, and to_string() saying why not."""

    __slots__ = ("_ok", "_message")

    def __init__(self, ok: bool = True, message: str = "") -> None:
        self._ok = ok
        self._message = message

    def ok(self) -> bool:
        """Whether the launcher took the request (always true outside pai-launch)."""
        return self._ok

    def to_string(self) -> str:
        """Why the call failed; "OK" (or a note) when it did not."""
        return self._message or ("OK" if self._ok else "failed")

    def __bool__(self) -> bool:
        return self._ok

    def __repr__(self) -> str:
        return "Status(ok={!r}, message={!r})".format(self._ok, self._message)


class MonitorWarning(UserWarning):
    """A call of this module failed, or pai-launch is not there. Issued once per distinct
    problem; silence with warnings.simplefilter("ignore", MonitorWarning)."""


class _Config:
    """Settings for a Monitor. Keeps every keyword it is given in `settings`; pai-launch
    uses job_hang_interval and job_exit_hang_interval (seconds, see
    Monitor.reset_config) and ignores the rest."""

    def __init__(self, **settings) -> None:
        self.settings = dict(settings)

    @property
    def job_hang_interval(self) -> Optional[int]:
        """Hang interval in seconds (-1: none), or None for the job spec's."""
        return self.settings.get("job_hang_interval")

    @property
    def job_exit_hang_interval(self) -> Optional[int]:
        """How long ranks may run on after one exited successfully, or None."""
        return self.settings.get("job_exit_hang_interval")

    def __repr__(self) -> str:
        arguments = ", ".join("{}={!r}".format(k, v) for k, v in self.settings.items())
        return "{}({})".format(type(self).__name__, arguments)


class PyTorchConfig(_Config):
    """AIMaster's configuration for PyTorch jobs."""


class TFConfig(_Config):
    """AIMaster's configuration for TensorFlow jobs."""


class _Session:
    """What one process knows of its launcher: the connection, the hang intervals it asked
    for, and the problems it has warned about."""

    def __init__(self, socket_path: Optional[str]) -> None:
        self._connection = _control.ControlConnection(socket_path) if socket_path else None
        self._scopes = HangScopes()
        self._hang_lock = threading.Lock()  # a change of interval and its request, together
        self._warn_lock = threading.Lock()
        self._warned = set()

    def outside_launcher(self, nothing_done: str) -> Optional[Status]:
        """Outside pai-launch (PAI_CONTROL_SOCKET not set): the ok Status every call returns
        there, saying `nothing_done`, after one warning per process. None under pai-launch."""
        if self._connection is not None:
            return None
        self.warn("PAI_CONTROL_SOCKET is not set (not running under pai-launch): "
                  "job monitor calls do nothing")
        return Status(True, "not running under pai-launch: " + nothing_done)

    def send(self, verb: str, argument: str) -> Status:
        """Sends `verb argument` (flattened to one line and cut to fit)."""
        outside = self.outside_launcher("nothing sent")
        if outside is not None:
            return outside
        problem = self._connection.request(_control.request_line(verb, argument))
        return Status() if problem is None else self.fail(problem)

    def ask(self, verb: str) -> Optional[str]:
        """The launcher's answer to `verb` (the text after "ok "); None outside pai-launch
        (without a warning) or when the request failed (warned about once)."""
        if self._connection is None:
            return None
        answer, problem = self._connection.ask(verb)
        if problem is not None:
            self.warn(problem)
        return answer

    def fail(self, problem: str) -> Status:
        """A failed Status for `problem`, warned about once."""
        self.warn(problem)
        return Status(False, problem)

    def warn(self, problem: str) -> None:
        """Issues a MonitorWarning for `problem`, unless one was issued before."""
        with self._warn_lock:
            if problem in self._warned:
                return
            self._warned.add(problem)
        warnings.warn("pai job monitor: " + problem, MonitorWarning)

    def set_hang_base(self, interval: str) -> Status:
        """Sets the interval now; it is restored when the last open scope closes, unless
        the launcher refused it."""
        with self._hang_lock:
            status = self.send("hang-interval", interval)
            if status.ok():
                self._scopes.base = interval
            return status

    def open_scope(self, interval: str) -> object:
        """Puts `interval` in force for a scope; returns the token for close_scope."""
        with self._hang_lock:
            self.send("hang-interval", interval)
            return self._scopes.open(interval)

    def close_scope(self, token: object) -> None:
        """Ends a scope, restoring the interval before it when it was the one in force."""
        with self._hang_lock:
            interval = self._scopes.close(token)
            if interval is not None:
                self.send("hang-interval", interval)

    def reset_in_child(self) -> None:
        # Another thread of the parent may have held a lock at fork().
        self._hang_lock = threading.Lock()
        self._warn_lock = threading.Lock()


_session_lock = threading.Lock()
_current_session: Optional[_Session] = None


def _session() -> _Session:
    """This process's session, made on first use from PAI_CONTROL_SOCKET."""
    global _current_session
    with _session_lock:
        if _current_session is None:
            _current_session = _Session(os.environ.get("PAI_CONTROL_SOCKET") or None)
        return _current_session


def _whole_seconds(value: Union[int, float]) -> int:
    """`value` as whole seconds, a fraction rounded up. Raises TypeError or ValueError."""
    if isinstance(value, bool):
        raise TypeError("a number of seconds, not a bool")
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError("a finite number of seconds")
        return math.ceil(value)
    return operator.index(value)


def _hang_interval(seconds: Union[int, float]) -> str:
    """The `hang-interval` argument for `seconds`: 0 or less means "off"."""
    whole = _whole_seconds(seconds)
    return OFF if whole <= 0 else str(whole)


#: The planned checkpoint interval pai-launch gives every rank (docs/checkpoint-planning.md).
CHECKPOINT_INTERVAL_VARIABLE = "PAI_CHECKPOINT_INTERVAL_SECONDS"

#: The clock of should_checkpoint; tests replace it.
_clock = time.monotonic

#: How often should_checkpoint asks the launcher for the job's checkpoint advice
#: (`checkpoint-advice`: the interval as the coordinator refined it from the job's saves, and
#: the latest `pai-launch checkpoint-now`), in seconds: one request at most this often.
ADVICE_PERIOD_S = 5.0


def _parse_advice(answer: str) -> Optional[Tuple[int, int]]:
    """(interval seconds, request number) from "interval=N request=K"; None if malformed."""
    fields = dict(part.split("=", 1) for part in answer.split() if "=" in part)
    try:
        interval, request = int(fields["interval"]), int(fields["request"])
    except (KeyError, ValueError):
        return None
    return (interval, request) if interval >= 0 and request >= 0 else None


def _checkpoint_interval_from_env() -> Optional[float]:
    """PAI_CHECKPOINT_INTERVAL_SECONDS as seconds > 0, or None (unset or not a number)."""
    try:
        seconds = float(os.environ.get(CHECKPOINT_INTERVAL_VARIABLE, ""))
    except ValueError:
        return None
    return seconds if math.isfinite(seconds) and seconds > 0 else None


def _argument_problem(name: str, value: object, expected: str) -> str:
    return "{} must be {}, got {!r}".format(name, expected, value)


class Monitor:
    """AIMaster's job monitor, for one rank's training process.

    A Monitor made with a config applies its job_hang_interval and job_exit_hang_interval
    (as reset_config does). Failures of those requests are warned about.
    """

    def __init__(self, config: Optional[_Config] = None) -> None:
        self.config = config
        self._checkpoint_interval = _checkpoint_interval_from_env()
        self._interval_start = _clock()
        self._due_step: Optional[int] = None
        # The launcher's advice: asked at the first should_checkpoint, then every
        # ADVICE_PERIOD_S; the interval it last gave (a change replaces ours) and the
        # latest checkpoint-now request acted on.
        self._advice_due = self._interval_start
        self._advised_interval = self._checkpoint_interval
        self._request_seen = 0
        self._requested = False
        if config is not None:
            self.reset_config(
                job_hang_interval=getattr(config, "job_hang_interval", None),
                job_exit_hang_interval=getattr(config, "job_exit_hang_interval", None))

    def send_custom_message(self, content: str) -> Status:
        """Records `content` in the job journal: `notify <content>`, line breaks turned
        into spaces, cut to the launcher's 4096-byte line limit."""
        return _session().send("notify", str(content))

    def report_step(self, step: int) -> Status:
        """Tells the launcher training made progress (`progress <step>`), which resets
        hang detection. `step` is an integer >= 0."""
        try:
            whole = operator.index(step)
        except TypeError:
            whole = -1
        if whole < 0:
            return _session().fail("report_step needs an integer step >= 0")
        return _session().send("progress", str(whole))

    def set_retryable_errors(self, errors: Union[str, Iterable[str]]) -> Status:
        """Adds log keywords: a rank failure whose log contains one is retried (restart),
        for this job while it runs. One `retryable-error <keyword>` per keyword; a keyword
        must be one non-empty line. Returns the first failure, if any."""
        try:
            keywords = [errors] if isinstance(errors, str) else list(errors)
        except TypeError:
            return _session().fail(_argument_problem(
                "set_retryable_errors' errors", errors, "a list of strings"))
        statuses = []
        for keyword in keywords:
            problem = _retryable_error_problem(keyword)
            if problem:
                statuses.append(_session().fail(problem))
            else:
                statuses.append(_session().send("retryable-error", keyword))
        return _first_failure(statuses)

    def reset_config(self, job_hang_interval: Optional[Union[int, float]] = None,
                     job_exit_hang_interval: Optional[Union[int, float]] = None) -> Status:
        """Changes the job's intervals, in seconds, from now on; None leaves one as is.

        job_hang_interval: `hang-interval <seconds>`, or `hang-interval off` for -1 or 0
        (no hang detection). It is also what hang_detect scopes restore when the last one
        closes, unless the launcher refused it.
        job_exit_hang_interval: `exit-hang-interval <seconds>`, how long ranks may keep
        running after one of them exited successfully; at least 1.
        Returns the first failure, if any.
        """
        statuses = []
        if job_hang_interval is not None:
            try:
                interval = _hang_interval(job_hang_interval)
            except (TypeError, ValueError):
                statuses.append(_session().fail(_argument_problem(
                    "job_hang_interval", job_hang_interval, "whole seconds")))
            else:
                statuses.append(_session().set_hang_base(interval))
        if job_exit_hang_interval is not None:
            try:
                seconds = _whole_seconds(job_exit_hang_interval)
            except (TypeError, ValueError):
                seconds = 0
            if seconds <= 0:
                statuses.append(_session().fail(_argument_problem(
                    "job_exit_hang_interval", job_exit_hang_interval,
                    "whole seconds >= 1 (there is no 'off' for it)")))
            else:
                statuses.append(_session().send("exit-hang-interval", str(seconds)))
        return _first_failure(statuses)

    def should_checkpoint(self, step: int) -> bool:
        """True when this rank should save a checkpoint at `step`: the planned interval
        (PAI_CHECKPOINT_INTERVAL_SECONDS, which pai-compile's planner chose) has passed since
        the last True's save ended, or since the Monitor was made; or a `pai-launch
        checkpoint-now` was asked since (once per request). Meant to be called every step:
        it reads a clock and compares, and at most every ADVICE_PERIOD_S asks the launcher
        for the job's advice (`checkpoint-advice`), whose interval, refined by the
        coordinator from the job's own saves, replaces the planned one when it changes.

        The interval counts training time: it restarts at the first call for a later step
        than the one answered True, when that save is over. Asking again for the same step
        gives the same answer. Outside pai-launch (no PAI_CHECKPOINT_INTERVAL_SECONDS and no
        control socket) it is always False: the caller's own schedule stands.
        """
        self._follow_advice()
        if self._due_step is not None:
            if step == self._due_step:
                return True
            self._due_step = None
            self._interval_start = _clock()
        if self._requested:
            self._requested = False
            self._due_step = step
            return True
        interval = self._checkpoint_interval
        if interval is None or _clock() - self._interval_start < interval:
            return False
        self._due_step = step
        return True

    def _follow_advice(self) -> None:
        """Asks the launcher for its checkpoint advice when ADVICE_PERIOD_S has passed."""
        now = _clock()
        if now < self._advice_due:
            return
        self._advice_due = now + ADVICE_PERIOD_S
        answer = _session().ask("checkpoint-advice")
        advice = _parse_advice(answer) if answer is not None else None
        if advice is None:
            if answer is not None:
                _session().warn("unexpected checkpoint advice from the launcher: {!r}"
                                .format(answer[:200]))
            return
        interval, request = advice
        if interval > 0 and interval != self._advised_interval:
            self._advised_interval = interval
            self._checkpoint_interval = float(interval)
        if request > self._request_seen:
            self._request_seen = request
            self._requested = True

    def set_checkpoint_interval(self, seconds: Optional[Union[int, float]]) -> None:
        """Replaces the planned interval; None, or anything but a number > 0, means never
        (should_checkpoint then answers True only for a checkpoint-now request). The time
        since the last checkpoint is kept. It stands until the coordinator refines the
        interval again (docs/checkpoint-planning.md, "While the job runs")."""
        valid = (seconds is not None and not isinstance(seconds, bool)
                 and isinstance(seconds, (int, float)) and math.isfinite(seconds) and seconds > 0)
        self._checkpoint_interval = float(seconds) if valid else None

    def hang_detect(self, seconds: Union[int, float]) -> "hang_detect":
        """The module's hang_detect(seconds)."""
        return hang_detect(seconds)

    def instrument(self, model: Any = None) -> Status:
        """Records this rank's torch.distributed collectives in its telemetry ring, and, given
        a DistributedDataParallel `model`, each gradient bucket's all-reduce: what
        pai.telemetry.instrument(model) does, for the launcher's diagnosis of hung and slow
        ranks, the steps of `pai-launch status` and hang detection. Call it after
        init_process_group; calling it again wraps nothing twice.

        Returns an ok Status when collectives are recorded. Otherwise nothing changes and the
        Status says why (no torch, no process group yet, no ring), warned once; outside
        pai-launch it is the ok Status of every call there (nothing recorded).
        """
        problem = telemetry._instrument(model)
        if problem is None:
            return Status()
        outside = _session().outside_launcher("nothing recorded")
        if outside is not None:
            return outside
        return _session().fail("instrument: " + problem)


def _retryable_error_problem(keyword: object) -> Optional[str]:
    """Why `keyword` cannot be a retryable error, or None. Unlike a message it is not
    flattened or cut: that would change what it matches."""
    if not isinstance(keyword, str) or not keyword or "\n" in keyword or "\r" in keyword:
        return _argument_problem("a retryable error", keyword, "one non-empty line of text")
    if len(("retryable-error " + keyword).encode("utf-8", "replace")) > _control.MAX_LINE_BYTES:
        return _argument_problem("a retryable error", keyword[:40] + "...",
                                 "at most {} bytes".format(_control.MAX_LINE_BYTES - 16))
    return None


def _first_failure(statuses: List[Status]) -> Status:
    for status in statuses:
        if not status.ok():
            return status
    return statuses[0] if statuses else Status()


class hang_detect:  # noqa: N801 - AIMaster's name, used as a decorator
    """A scope with its own hang interval, as a context manager or a function decorator
    (plain or async functions; each call is a scope).

        with hang_detect(-1):          # -1 (or 0): no hang detection within
            slow_io()

        @hang_detect(1800)
        def evaluate(): ...

    Entering sends `hang-interval <seconds>` (or `off`). Leaving, even by an exception,
    sends the interval in force before: the enclosing scope's, else what reset_config last
    set, else `default` (the job spec's). Scopes nest. With several threads, the interval
    in force is that of the most recently entered scope still open, in any thread; leaving
    an older scope sends nothing until the newer ones are left. Failures are warned about,
    never raised; a bad `seconds` makes a scope that sends nothing.
    """

    def __init__(self, seconds: Union[int, float]) -> None:
        self.seconds = seconds
        try:
            self._interval: Optional[str] = _hang_interval(seconds)
        except (TypeError, ValueError):
            self._interval = None
            _session().fail(_argument_problem("hang_detect's seconds", seconds,
                                              "whole seconds"))
        self._entered = threading.local()  # each thread's open scopes of this object

    def __enter__(self) -> "hang_detect":
        stack = self._entered.__dict__.setdefault("scopes", [])
        stack.append(self._open())
        return self

    def __exit__(self, *exception) -> bool:
        self._close(self._entered.scopes.pop())
        return False

    def __call__(self, function):
        if inspect.iscoroutinefunction(function):
            async def scoped(*args, **kwargs):
                scope = self._open()
                try:
                    return await function(*args, **kwargs)
                finally:
                    self._close(scope)
        else:
            def scoped(*args, **kwargs):
                scope = self._open()
                try:
                    return function(*args, **kwargs)
                finally:
                    self._close(scope)
        return functools.wraps(function)(scoped)

    def _open(self):
        if self._interval is None:
            return None
        session = _session()
        return session, session.open_scope(self._interval)

    @staticmethod
    def _close(scope) -> None:
        if scope is not None:
            session, token = scope
            session.close_scope(token)

    def __repr__(self) -> str:
        return "hang_detect({!r})".format(self.seconds)


_default_monitor = Monitor()
#: Monitor.send_custom_message of a default Monitor.
send_custom_message = _default_monitor.send_custom_message
#: Monitor.report_step of a default Monitor.
report_step = _default_monitor.report_step
#: Monitor.set_retryable_errors of a default Monitor.
set_retryable_errors = _default_monitor.set_retryable_errors
#: Monitor.reset_config of a default Monitor.
reset_config = _default_monitor.reset_config
#: Monitor.should_checkpoint of a default Monitor.
should_checkpoint = _default_monitor.should_checkpoint


def _reset_session_in_child() -> None:
    global _session_lock
    _session_lock = threading.Lock()
    if _current_session is not None:
        _current_session.reset_in_child()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reset_session_in_child)

if threading.current_thread() is threading.main_thread():
    enable_stack_dumps()
