"""pai.telemetry: step and collective records in the rank's telemetry ring.

pai-launch gives every rank a ring file, named by PAI_TELEMETRY_FILE (its layout is
include/pai/telemetry.h). A rank appends a 64-byte record at each step boundary and around
each collective; the launcher reads them to tell which rank is slow or stuck, and where.

    from pai import telemetry

    telemetry.instrument(ddp_model)   # after init_process_group: collectives are recorded
    r = telemetry.ring()              # None outside pai-launch
    for step, batch in enumerate(loader):
        if r: r.step_begin(step)
        ...
        if r: r.step_end(step)

Writing a record is a few stores into a shared mapping (struct.pack_into): no system call,
about a microsecond. Nothing here raises into training code: ring() is None when the variable
is unset or names no valid ring, and instrument() returns False when it cannot instrument.

A drill (`pai-launch drill --faults collective-hang`, docs/drill.md) holds a rank inside a
collective through its ring: the launcher writes a deadline into the ring's header, and the
wrappers below, once a collective they record has completed, stay inside it (its exit not yet
recorded) until that deadline passes or the launcher clears it. Reading the word costs one
unpacked load per collective.

One process writes a ring: the first to attach takes an exclusive flock on the file, so the
workers of a `torchrun` that pai-launch started as one rank (they all inherit the variable)
find the ring taken, and all but one get None. A process forked from the writer gets None.

Standard library only; torch is imported by instrument() alone, when it is called.
"""

import fcntl
import mmap
import os
import stat
import struct
import threading
import time
import warnings
import zlib
from typing import Any, Callable, Dict, Optional, Union

__all__ = [
    "Ring",
    "RingError",
    "RingTaken",
    "instrument",
    "ring",
    "STEP_BEGIN",
    "STEP_END",
    "COLLECTIVE_ENTER",
    "COLLECTIVE_EXIT",
    "OPS",
]

MAGIC = 0x54494150  # b"PAIT" little-endian
VERSION = 1
RECORD_SIZE = 64
HEAD_OFFSET = 64
RECORDS_OFFSET = 128
MAX_CAPACITY = 1 << 20
#: The header's drill word: CLOCK_MONOTONIC ns until which collectives hold; 0 none.
DRILL_UNTIL_OFFSET = 24
#: The longest hold honoured; a word further ahead is not the launcher's and is ignored.
MAX_HOLD_NS = 3660 * 1000 * 1000 * 1000
_HOLD_POLL_S = 0.05

# Record kinds.
STEP_BEGIN = 1
STEP_END = 2
COLLECTIVE_ENTER = 3
COLLECTIVE_EXIT = 4

# Collective ops (pai_telemetry_op).
NONE = 0
ALL_REDUCE = 1
BROADCAST = 2
ALL_GATHER = 3
REDUCE_SCATTER = 4
BARRIER = 5
ALL_TO_ALL = 6
SEND = 7
RECV = 8
REDUCE = 9
GATHER = 10
SCATTER = 11
OTHER = 255

#: Op codes by name, for collective_enter/collective_exit given a name.
OPS = {
    "none": NONE,
    "all_reduce": ALL_REDUCE,
    "broadcast": BROADCAST,
    "all_gather": ALL_GATHER,
    "reduce_scatter": REDUCE_SCATTER,
    "barrier": BARRIER,
    "all_to_all": ALL_TO_ALL,
    "send": SEND,
    "recv": RECV,
    "reduce": REDUCE,
    "gather": GATHER,
    "scatter": SCATTER,
    "other": OTHER,
}

# magic, version, record_size, capacity, rank, writer_pid
_HEADER = struct.Struct("<IHHIii")
_WRITER_PID_OFFSET = 16
_U64 = struct.Struct("<Q")
_I32 = struct.Struct("<i")
# A record after its seq: time_ns, kind, op, group, step, collective_seq, bytes, reserved.
_BODY = struct.Struct("<QHHIqQQ16x")
assert _HEADER.size == 20 and _BODY.size == RECORD_SIZE - 8


class RingError(Exception):
    """The ring file cannot be used; the message names it and says why."""


class Ring:
    """The writing end of one telemetry ring, mapped shared.

    Each method appends one record and returns nothing. Thread-safe (a lock orders the
    writers of this process); the record's time is taken inside the lock, so times in the
    ring never go backwards.
    """

    def __init__(self, path: Optional[str] = None) -> None:
        """Opens the ring at `path` (default: $PAI_TELEMETRY_FILE), checks its header, takes
        the writer's lock and stores this process's pid as writer_pid. Raises RingError."""
        if path is None:
            path = os.environ.get("PAI_TELEMETRY_FILE", "")
            if not path:
                raise RingError("PAI_TELEMETRY_FILE is not set")
        self.path = path
        try:
            fd = os.open(path, os.O_RDWR | os.O_CLOEXEC | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError as e:
            raise RingError("telemetry ring {}: cannot open: {}".format(path, e.strerror))
        try:
            self._map = self._attach(fd, path)
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd  # holds the writer's lock until close()
        self._lock = threading.Lock()
        self._head = _U64.unpack_from(self._map, HEAD_OFFSET)[0]
        self._mask = self.capacity - 1
        #: The step of the last step_begin/step_end; collectives are recorded with it.
        self.step = -1
        _I32.pack_into(self._map, _WRITER_PID_OFFSET, os.getpid())

    def _attach(self, fd: int, path: str) -> mmap.mmap:
        def bad(why: str) -> RingError:
            return RingError("telemetry ring {}: {}".format(path, why))

        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise bad("not a regular file")
        header = os.pread(fd, _HEADER.size, 0)
        if len(header) < _HEADER.size:
            raise bad("truncated: {} bytes".format(st.st_size))
        magic, version, record_size, capacity, rank, _ = _HEADER.unpack(header)
        if magic != MAGIC:
            raise bad("not a telemetry ring (bad magic)")
        if version != VERSION:
            raise bad("version {}, this SDK writes version {}".format(version, VERSION))
        if record_size != RECORD_SIZE:
            raise bad("record size {}, expected {}".format(record_size, RECORD_SIZE))
        if capacity == 0 or capacity & (capacity - 1) or capacity > MAX_CAPACITY:
            raise bad("capacity {} is not a power of two up to {}".format(capacity, MAX_CAPACITY))
        size = RECORDS_OFFSET + capacity * RECORD_SIZE
        if st.st_size != size:
            raise bad("{} bytes, but a ring of {} records has {}"
                      .format(st.st_size, capacity, size))
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise RingTaken("telemetry ring {}: another process writes it".format(path))
        self.capacity = capacity
        #: The global rank the launcher wrote in the header.
        self.rank = rank
        return mmap.mmap(fd, size, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)

    @property
    def written(self) -> int:
        """Records this ring holds or held: its head."""
        return self._head

    def _append(self, kind: int, op: int, group: int, step: int, seq: int, nbytes: int) -> None:
        # The order of include/pai/telemetry.h: seq 0, body, seq, head.
        m = self._map
        with self._lock:
            n = self._head
            at = RECORDS_OFFSET + (n & self._mask) * RECORD_SIZE
            _U64.pack_into(m, at, 0)
            _BODY.pack_into(m, at + 8, time.monotonic_ns(), kind, op, group, step, seq, nbytes)
            n += 1
            _U64.pack_into(m, at, n)
            _U64.pack_into(m, HEAD_OFFSET, n)
            self._head = n

    def drill_until(self) -> int:
        """The drill's hold the launcher wrote into the header (CLOCK_MONOTONIC ns; 0: none)."""
        return _U64.unpack_from(self._map, DRILL_UNTIL_OFFSET)[0]

    def hold_if_drilled(self) -> float:
        """A drill's collective-hang: waits while the drill's hold lies ahead, reading it again
        every 50 ms, so that the launcher's clearing ends the wait early. A hold more than
        MAX_HOLD_NS ahead is ignored. Returns the seconds waited (0.0 when none)."""
        waited = 0.0
        until = self.drill_until()
        while until:
            now = time.monotonic_ns()
            if until <= now or until - now > MAX_HOLD_NS:
                break
            pause = min(_HOLD_POLL_S, (until - now) / 1e9)
            time.sleep(pause)
            waited += pause
            until = self.drill_until()
        return waited

    def step_begin(self, step: int) -> None:
        """Training step `step` (an int64) begins."""
        self._append(STEP_BEGIN, NONE, 0, step, 0, 0)
        self.step = step

    def step_end(self, step: int) -> None:
        """Training step `step` ended."""
        self._append(STEP_END, NONE, 0, step, 0, 0)
        self.step = step

    def collective_enter(self, op: Union[int, str], group: int, seq: int, nbytes: int,
                         step: int = -1) -> None:
        """This rank enters collective number `seq` of process group `group` (0 = the default
        group): `op` (a code or a name of OPS), `nbytes` of payload, during `step`."""
        if not isinstance(op, int):
            op = OPS.get(op, OTHER)
        self._append(COLLECTIVE_ENTER, op, group, step, seq, nbytes)

    def collective_exit(self, op: Union[int, str], group: int, seq: int, nbytes: int,
                        step: int = -1) -> None:
        """This rank left collective `seq` of `group` (the arguments of its collective_enter)."""
        if not isinstance(op, int):
            op = OPS.get(op, OTHER)
        self._append(COLLECTIVE_EXIT, op, group, step, seq, nbytes)

    def close(self) -> None:
        """Unmaps the ring and gives up the writer's lock; later calls raise ValueError."""
        if self._fd >= 0:
            self._map.close()
            os.close(self._fd)
            self._fd = -1


class RingTaken(RingError):
    """Another process is the ring's writer."""


_RING = None  # type: Optional[Ring]
_RING_TRIED = False
_RING_LOCK = threading.Lock()


def ring() -> Optional[Ring]:
    """This process's ring, opened on first use from PAI_TELEMETRY_FILE; None when the
    variable is unset, the file is not a valid ring (a RuntimeWarning says why, once), another
    process writes it, or this process was forked from the writer. Never raises."""
    global _RING, _RING_TRIED
    if _RING_TRIED:
        return _RING
    with _RING_LOCK:
        if not _RING_TRIED:
            path = os.environ.get("PAI_TELEMETRY_FILE", "")
            if path:
                try:
                    _RING = Ring(path)
                except RingTaken:
                    pass
                except Exception as e:  # noqa: BLE001 - never into training code
                    warnings.warn("pai.telemetry: {}; nothing is recorded".format(e),
                                  RuntimeWarning, stacklevel=2)
            _RING_TRIED = True
    return _RING


def _forget_ring_in_child() -> None:
    # A forked child shares the parent's lock and mapping: one writer, the parent.
    global _RING, _RING_TRIED
    _RING = None
    _RING_TRIED = True


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_ring_in_child)


# ---- torch.distributed ----

# Wrapped torch.distributed functions: name -> (op, name of the argument whose tensors are the
# payload, or None). The payload is what this rank contributes or receives: the input of
# all_gather, reduce_scatter and all_to_all, the tensor of the others.
_COLLECTIVES = {
    "all_reduce": (ALL_REDUCE, "tensor"),
    "broadcast": (BROADCAST, "tensor"),
    "all_gather": (ALL_GATHER, "tensor"),
    "all_gather_into_tensor": (ALL_GATHER, "input_tensor"),
    "_all_gather_base": (ALL_GATHER, "input_tensor"),
    "reduce_scatter": (REDUCE_SCATTER, "input_list"),
    "reduce_scatter_tensor": (REDUCE_SCATTER, "input"),
    "_reduce_scatter_base": (REDUCE_SCATTER, "input"),
    "barrier": (BARRIER, None),
    "all_to_all": (ALL_TO_ALL, "input_tensor_list"),
    "all_to_all_single": (ALL_TO_ALL, "input"),
    "reduce": (REDUCE, "tensor"),
    "gather": (GATHER, "tensor"),
    "scatter": (SCATTER, "tensor"),
    "send": (SEND, "tensor"),
    "recv": (RECV, "tensor"),
    "isend": (SEND, "tensor"),
    "irecv": (RECV, "tensor"),
}
_WRAPPED_MARK = "__pai_telemetry_original__"


class _Collectives:
    """Group ids and per-group sequence numbers of one process's collectives."""

    def __init__(self, c10d: Any) -> None:
        self._c10d = c10d
        self._ids = {}  # type: Dict[Any, int]
        self._seqs = {}  # type: Dict[int, int]
        self._lock = threading.Lock()
        # Inside the DDP hook's own allreduce, which it records itself.
        self.local = threading.local()

    def group_id(self, group: Any) -> int:
        """0 for the default group; else torch's name of the group when it is a number (the
        order of new_group calls, the same on every rank), else a hash of the name with the
        top bit set."""
        if group is None:
            return 0
        gid = self._ids.get(group)
        if gid is None:
            gid = self._name_id(group)
            self._ids[group] = gid
        return gid

    def _name_id(self, group: Any) -> int:
        c10d = self._c10d
        try:
            if c10d.is_initialized() and group is c10d._get_default_group():
                return 0
        except Exception:  # noqa: BLE001 - torch internals vary between versions
            pass
        names = getattr(c10d, "_pg_names", None)
        if names is None:
            names = getattr(getattr(c10d, "_world", None), "pg_names", None)
        name = names.get(group) if isinstance(names, dict) else None
        if name is None:
            name = "anonymous-{}".format(len(self._ids))
        if name.isdigit() and int(name) < 1 << 31:
            return int(name)
        return (zlib.crc32(name.encode("utf-8", "replace")) | 0x80000000) & 0xFFFFFFFF

    def next_seq(self, gid: int) -> int:
        with self._lock:
            seq = self._seqs.get(gid, 0) + 1
            self._seqs[gid] = seq
            return seq


def _nbytes(payload: Any) -> int:
    try:
        if isinstance(payload, (list, tuple)):
            return sum(t.numel() * t.element_size() for t in payload)
        return payload.numel() * payload.element_size()
    except Exception:  # noqa: BLE001 - not tensors: unknown size
        return 0


def _argument_index(fn: Callable, name: Optional[str]) -> int:
    """The position of parameter `name` of `fn`, or -1."""
    if name is None:
        return -1
    import inspect

    try:
        params = list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return -1
    return params.index(name) if name in params else -1


def _wrap(fn: Callable, op: int, payload: Optional[str], state: _Collectives) -> Callable:
    payload_at = _argument_index(fn, payload)
    group_at = _argument_index(fn, "group")
    async_at = _argument_index(fn, "async_op")
    always_async = fn.__name__ in ("isend", "irecv")
    non_member = getattr(getattr(state._c10d, "GroupMember", None), "NON_GROUP_MEMBER", None)

    def argument(args: tuple, kwargs: dict, name: Optional[str], at: int, default: Any) -> Any:
        if name in kwargs:
            return kwargs[name]
        return args[at] if 0 <= at < len(args) else default

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        r = _RING
        if r is None or getattr(state.local, "quiet", False):
            return fn(*args, **kwargs)
        group = argument(args, kwargs, "group", group_at, None)
        if non_member is not None and group is non_member:
            return fn(*args, **kwargs)
        gid = state.group_id(group)
        seq = state.next_seq(gid)
        nbytes = _nbytes(argument(args, kwargs, payload, payload_at, None)) if payload else 0
        step = r.step
        _record(r, COLLECTIVE_ENTER, op, gid, seq, nbytes, step)
        try:
            result = fn(*args, **kwargs)
        except BaseException:
            _record(r, COLLECTIVE_EXIT, op, gid, seq, nbytes, step)
            raise
        drilled = _drilled(r)
        if result is not None and (always_async or argument(args, kwargs, "async_op", async_at,
                                                            False)):
            if drilled:
                result.wait()  # the hold begins once the collective completed
            elif _exit_on_completion(result, r, op, gid, seq, nbytes, step):
                return result
        if drilled:
            _hold(r)
        _record(r, COLLECTIVE_EXIT, op, gid, seq, nbytes, step)
        return result

    wrapper.__name__ = fn.__name__
    wrapper.__qualname__ = getattr(fn, "__qualname__", fn.__name__)
    wrapper.__doc__ = fn.__doc__
    wrapper.__wrapped__ = fn  # type: ignore[attr-defined]
    setattr(wrapper, _WRAPPED_MARK, fn)
    return wrapper


def _record(r: Ring, kind: int, op: int, gid: int, seq: int, nbytes: int, step: int) -> None:
    """Appends a record for a wrapper or hook: a failure (a ring closed by the program, a step
    that is no int64) must not fail the collective."""
    try:
        r._append(kind, op, gid, step, seq, nbytes)
    except Exception:  # noqa: BLE001
        pass


def _drilled(r: Ring) -> bool:
    """Whether a drill's hold is set in `r` (one load; False for a ring closed by the program)."""
    try:
        return r.drill_until() != 0
    except Exception:  # noqa: BLE001
        return False


def _hold(r: Ring) -> None:
    """Ring.hold_if_drilled for a wrapper or hook: never fails the collective."""
    try:
        r.hold_if_drilled()
    except Exception:  # noqa: BLE001
        pass


def _exit_on_completion(work: Any, r: Ring, op: int, gid: int, seq: int, nbytes: int,
                        step: int) -> bool:
    """Records the exit when `work` completes; False when its future cannot say when."""
    try:
        future = work.get_future()
        future.add_done_callback(
            lambda _: _record(r, COLLECTIVE_EXIT, op, gid, seq, nbytes, step))
        return True
    except Exception:  # noqa: BLE001 - backends without futures: exit at return
        return False


def _ddp_hook(state: _Collectives, allreduce_hook: Callable) -> Callable:
    # No annotations: DDP accepts a hook's only if they are torch's own types.
    def hook(process_group, bucket):  # type: ignore[no-untyped-def]
        r = _RING
        if r is None:
            return allreduce_hook(process_group, bucket)
        gid = state.group_id(process_group)
        seq = state.next_seq(gid)
        nbytes = _nbytes(bucket.buffer())
        step = r.step
        _record(r, COLLECTIVE_ENTER, ALL_REDUCE, gid, seq, nbytes, step)
        state.local.quiet = True
        try:
            future = allreduce_hook(process_group, bucket)
        except BaseException:
            _record(r, COLLECTIVE_EXIT, ALL_REDUCE, gid, seq, nbytes, step)
            raise
        finally:
            state.local.quiet = False
        if _drilled(r):  # a drill's hold: inside the bucket's all-reduce once it completed
            future.wait()
            _hold(r)
            _record(r, COLLECTIVE_EXIT, ALL_REDUCE, gid, seq, nbytes, step)
            return future

        def done(f: Any) -> Any:
            _record(r, COLLECTIVE_EXIT, ALL_REDUCE, gid, seq, nbytes, step)
            return f.value()

        return future.then(done)

    return hook


_STATE = None  # type: Optional[_Collectives]


def instrument(model: Any = None) -> bool:
    """Records torch.distributed collectives in this process's ring.

    Call it after init_process_group. It replaces torch.distributed's all_reduce, broadcast,
    all_gather (and all_gather_into_tensor), reduce_scatter (and reduce_scatter_tensor),
    barrier, all_to_all (and all_to_all_single), reduce, gather, scatter, send, recv, isend and
    irecv with wrappers that record an enter and an exit record around each call, with the
    group's id (0 = default group), a per-group sequence number (1, 2, ...; the same on every
    rank for the group's collectives, as every rank issues them in the same order), the
    payload's bytes and the current step (the last step_begin/step_end). Code that bound a
    function before the call (`from torch.distributed import all_reduce`) keeps the original.

    With async_op=True (and isend/irecv) the exit is recorded when the returned work's future
    completes (a callback; no thread), or at return where the backend has no future. For NCCL,
    as for any CUDA work, "completes" and a synchronous return mean the work was queued on the
    GPU stream, not finished.

    Given a DistributedDataParallel `model`, also registers a communication hook that records
    each gradient bucket's all-reduce (enter when the hook runs, exit in the future's callback)
    and then runs DDP's default allreduce_hook; a model that already has a hook keeps it (a
    RuntimeWarning says so). Any Python comm hook costs DDP a little over its built-in
    allreduce (the division by the world size becomes a pass of its own): about 1% of the step
    of a small CPU model in bench/telemetry_overhead.py, of which the records are 0.05%.

    A drill's collective-hang (the module's docstring) holds a completed collective open in
    these wrappers and in the hook; without a drill each costs one more load from the ring.

    Returns True when collectives are recorded (again on later calls); False, doing nothing,
    without torch, before init_process_group, or without a ring.
    """
    return _instrument(model) is None


def _instrument(model: Any) -> Optional[str]:
    """instrument(model); None when collectives are recorded, else why not."""
    global _STATE
    try:
        import torch.distributed as dist
    except Exception as e:  # noqa: BLE001 - no torch (or a broken one): nothing to instrument
        return "no torch.distributed ({}: {})".format(type(e).__name__, e)
    try:
        if not dist.is_available():
            return "torch.distributed is not available in this build of torch"
        if not dist.is_initialized():
            return "no process group yet: call it after init_process_group"
        if ring() is None:
            if not os.environ.get("PAI_TELEMETRY_FILE"):
                return "no telemetry ring: PAI_TELEMETRY_FILE is not set"
            return ("no telemetry ring: PAI_TELEMETRY_FILE names none this process writes "
                    "(another process writes it, or it is not a ring)")
        from torch.distributed import distributed_c10d as c10d

        if _STATE is None:
            _STATE = _Collectives(c10d)
        for name, (op, payload) in _COLLECTIVES.items():
            fn = getattr(dist, name, None)
            if fn is None or hasattr(fn, _WRAPPED_MARK):
                continue
            setattr(dist, name, _wrap(fn, op, payload, _STATE))
    except Exception as e:  # noqa: BLE001 - never into training code
        # stacklevel: the caller of instrument(), above this function.
        warnings.warn("pai.telemetry: cannot instrument torch.distributed: {}".format(e),
                      RuntimeWarning, stacklevel=3)
        return "cannot instrument torch.distributed: {}".format(e)
    if model is not None:
        _hook_ddp(model, _STATE)
    return None


def _hook_ddp(model: Any, state: _Collectives) -> None:
    try:
        from torch.distributed.algorithms.ddp_comm_hooks.default_hooks import allreduce_hook
        from torch.nn.parallel import DistributedDataParallel
    except Exception as e:  # noqa: BLE001
        warnings.warn("pai.telemetry: no DDP communication hooks: {}".format(e), RuntimeWarning,
                      stacklevel=4)
        return
    if not isinstance(model, DistributedDataParallel):
        warnings.warn("pai.telemetry: instrument(model): not a DistributedDataParallel model; "
                      "its gradient all-reduces are not recorded", RuntimeWarning, stacklevel=4)
        return
    if getattr(model, "_pai_telemetry_hooked", False):
        return
    try:
        model.register_comm_hook(model.process_group, _ddp_hook(state, allreduce_hook))
        model._pai_telemetry_hooked = True
    except Exception as e:  # noqa: BLE001 - e.g. a hook is already registered
        warnings.warn("pai.telemetry: cannot record the model's gradient all-reduces: {}"
                      .format(e), RuntimeWarning, stacklevel=4)
