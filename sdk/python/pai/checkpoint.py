"""Asynchronous checkpoints, and the newest complete one to resume from.

    from pai import checkpoint

    restored = checkpoint.load_latest()         # None on a first start
    if restored is not None:
        step, state = restored
        model.load_state_dict(state["model"])
    ...
    handle = checkpoint.save_async({"model": model.state_dict(),
                                    "optim": optimizer.state_dict()}, step)

save_async copies every tensor of the state to CPU memory, then returns; a background thread
writes $PAI_OUTPUT_DIR/checkpoints/step-<N>/ (state.pt and meta.json) into a temporary
folder, fsyncs it and renames it into place, then moves checkpoints/latest forward. With
optimizer=, the tensors that optimizer changes are copied in the background too, while
training goes on, and the optimizer's next step() waits for that copy:

    handle = checkpoint.save_async(state, step, optimizer=optimizer)
    ...                                 # forward and backward overlap the copy
    optimizer.step()                    # waits until the copy is done (handle.copied())

A folder
named step-<N> is therefore always complete, and `latest` only ever names complete folders,
even when the process is killed (kill -9, power loss) in the middle of a save.

At most one save is in flight per process: save_async first waits for the previous one.

Nothing raises into training code once the call is accepted: a failed write (no space left,
permissions, a step saved before) ends up in handle.error and in a MonitorWarning, and the
temporary folder is removed. Under pai-launch (PAI_CONTROL_SOCKET set) the launcher is told
`checkpoint-begin <N>`, `checkpoint-resumed <N>` as save_async returns (training goes on, the
write does not hold it up), then `checkpoint-done <N> <path>` or `checkpoint-failed <N> <why>`,
on the job monitor's connection; a refused or failed request never disturbs the save.

State files are written with torch.save when torch is importable, else with pickle; meta.json
says which ("format"). Standard library only; torch is imported when a save needs it.
"""

import atexit
import copy
import datetime
import errno
import fcntl
import json
import operator
import os
import pickle
import re
import shutil
import socket
import sys
import threading
import time
import warnings
from typing import Any, Callable, Dict, List, Optional, Set, Tuple

from . import _step_guard, job_monitor

__all__ = [
    "CheckpointHandle",
    "latest_path",
    "load_latest",
    "save_async",
]

#: Folder under the output folder that holds the checkpoints.
CHECKPOINTS = "checkpoints"
#: Name of the pointer file in CHECKPOINTS: "step-<N>\n".
LATEST = "latest"
#: The files of a complete checkpoint folder.
STATE_FILE = "state.pt"
META_FILE = "meta.json"
#: The writer thread's nice value while it writes (Linux: per thread).
WRITER_NICE = 10

_STEP_FOLDER = re.compile(r"step-(0|[1-9][0-9]*)\Z")
# Temporary names: .step-<N>.tmp-<hostname>-<pid> and .latest.tmp-<hostname>-<pid>.
_TEMPORARY = re.compile(r"\.(?:step-[0-9]+|latest)\.tmp-(.+)-([0-9]+)\Z")


class CheckpointHandle:
    """One save_async call: done() once finished, wait() for it, error if it failed.

    path: absolute path of the step-<N> folder (complete once wait() returns True), or None
    when the call was refused. error: None, or why the checkpoint was not written.
    """

    def __init__(self, step: Optional[int], path: Optional[str]) -> None:
        self.step = step
        self.path = path
        self.error: Optional[str] = None
        self._finished = threading.Event()
        self._thread: Optional[threading.Thread] = None
        self._call_seconds = 0.0
        self._gate: Optional[_step_guard.CopyGate] = None

    def copied(self) -> bool:
        """Whether every tensor of the state has been copied: training may then change any
        of them. True when save_async returns, unless optimizer= deferred some."""
        return self._gate is None or self._gate.is_open()

    def wait_copied(self, timeout: Optional[float] = None) -> bool:
        """Waits up to `timeout` seconds for copied(), and returns it."""
        return self._gate is None or self._gate.wait(timeout)

    @property
    def stall_seconds(self) -> float:
        """How long this save held training up: the time save_async took (waiting for the
        previous save included), plus the time the optimizers' step() waited for the copy."""
        return self._call_seconds + (self._gate.waited if self._gate is not None else 0.0)

    def done(self) -> bool:
        """Whether the save has finished, written or failed."""
        return self._finished.is_set()

    def wait(self, timeout: Optional[float] = None) -> bool:
        """Waits up to `timeout` seconds (None: as long as it takes) for the save to finish.
        Returns True when the checkpoint was written, False when it failed or is still
        being written."""
        self._finished.wait(timeout)
        return self._finished.is_set() and self.error is None

    def _finish(self, error: Optional[str]) -> None:
        self.error = error
        self._finished.set()

    def __repr__(self) -> str:
        state = "running" if not self.done() else ("failed" if self.error else "written")
        return "CheckpointHandle(step={!r}, path={!r}, {})".format(self.step, self.path, state)


# One save in flight per process; _save_lock serialises save_async calls of all threads.
_save_lock = threading.Lock()
_in_flight: Optional[CheckpointHandle] = None
# Checkpoint folders (realpath) -> the newest step this process wrote there.
_saved_here: Dict[str, int] = {}
# CPU copies kept between saves (keep_buffers=True), by place in the state.
_buffers: Dict[Tuple, Any] = {}
_torch_module: Any = None


def save_async(state: Any, step: int, dir: Optional[str] = None,  # noqa: A002 - the API's name
               keep_buffers: bool = False, optimizer: Any = None) -> CheckpointHandle:
    """Copies `state` to CPU memory and writes it in the background as checkpoint `step`.

    state: a dict, list or tuple (nested) of tensors and plain Python values. Tensors are
    copied to CPU memory (a new copy, also of CPU tensors), containers rebuilt, other values
    deep-copied (a value that cannot be is written as it is when the thread gets to it), so
    training may change its tensors as soon as this returns.
    step: an integer >= 0; the folder is step-<step>, which must not exist yet.
    dir: the folder to use instead of $PAI_OUTPUT_DIR: checkpoints go to
    <dir>/checkpoints/. Without both, raises ValueError.
    keep_buffers: keep the CPU copies after the write, and copy into them at the next save
    of tensors of the same shape and type instead of allocating new memory: less stall,
    but one copy of the state stays in memory between saves.
    optimizer: a torch.optim.Optimizer, or a list of them (TypeError for anything else).
    The tensors they change in step() -- their parameters (and every view of them, such as
    model.state_dict()'s) and their state -- are then copied by the background thread
    while training goes on, and the optimizers' next step() waits until that copy is done.
    Every other tensor is still copied before this returns, so the checkpoint is exactly
    the state at this call as long as the optimizers' tensors change only in step().

    Waits first for this process's previous save, if it is still being written. Returns a
    CheckpointHandle at once; a failure shows in handle.error and as a MonitorWarning.
    """
    global _in_flight
    start = time.monotonic()
    output = _output_dir(dir)
    folder = os.path.join(output, CHECKPOINTS)
    optimizers = _step_guard.optimizers_of(optimizer)
    with _save_lock:
        previous = _in_flight
        if previous is not None:
            previous.wait()
        try:
            whole = operator.index(step)
        except TypeError:
            whole = -1
        if isinstance(step, bool) or whole < 0:
            handle = CheckpointHandle(None, None)
            _fail(handle, "save_async needs an integer step >= 0, got {!r}".format(step),
                  tell=False)
            return handle
        handle = CheckpointHandle(whole, os.path.join(folder, "step-{}".format(whole)))
        _tell_launcher("checkpoint-begin", str(whole))
        try:
            deferred = _step_guard.guarded_storages(optimizers) if optimizers else set()
            copied, some_deferred = _copy_state(state, keep_buffers, deferred)
        except Exception as error:  # noqa: BLE001 - e.g. a device error while copying
            _fail(handle, "cannot copy checkpoint step {} to CPU memory: {}".format(
                whole, _describe(error)))
            return handle
        if not keep_buffers:
            _buffers.clear()
        if some_deferred:
            handle._gate = _step_guard.CopyGate()
        thread = threading.Thread(target=_copy_and_write,
                                  args=(handle, folder, copied, keep_buffers),
                                  name="pai-checkpoint-{}".format(whole), daemon=False)
        if handle._gate is not None:
            _step_guard.hold(optimizers, handle._gate)
        # Training goes on from here while the thread writes: the stall ends now, not when
        # the write does (the goodput account and the refined interval count only this part).
        _tell_launcher("checkpoint-resumed", str(whole))
        try:
            thread.start()
        except RuntimeError as error:  # can't start new thread
            _fail(handle, "cannot start the writer of checkpoint step {}: {}".format(
                whole, _describe(error)))
            return handle
        handle._thread = thread
        _in_flight = handle
        handle._call_seconds = time.monotonic() - start
        return handle


def latest_path(dir: Optional[str] = None) -> Optional[str]:  # noqa: A002
    """The absolute path of the newest complete checkpoint folder, or None (see
    load_latest for how it is chosen)."""
    return _choose(dir)


def load_latest(map_location: Any = "cpu", dir: Optional[str] = None,  # noqa: A002
                **load_options: Any) -> Optional[Tuple[int, Any]]:
    """(step, state) of the newest complete checkpoint, or None when there is none.

    Prefers PAI_LATEST_CHECKPOINT (set by pai-launch for restarted ranks) when it names a
    complete folder of this checkpoints folder, unless this process has since written a
    newer one; then the folder checkpoints/latest names; then the highest complete step-<N>
    folder. Temporary folders are ignored. dir: as for save_async (raises ValueError
    without dir, PAI_OUTPUT_DIR and PAI_LATEST_CHECKPOINT). torch.load gets map_location and
    load_options. Raises what loading raises (a corrupt file).
    """
    path = _choose(dir)
    if path is None:
        return None
    return _step_of(path), _load_state(path, map_location, load_options)


# --- Saving ----------------------------------------------------------------------------------


def _output_dir(dir: Optional[str]) -> str:  # noqa: A002
    output = dir if dir is not None else os.environ.get("PAI_OUTPUT_DIR")
    if not output:
        raise ValueError("pai.checkpoint: PAI_OUTPUT_DIR is not set: pass dir=")
    return os.path.abspath(os.fspath(output))


class _Deferred:
    """A tensor of the state that the writer thread copies (optimizer=)."""

    __slots__ = ("tensor", "place")

    def __init__(self, tensor: Any, place: Tuple) -> None:
        self.tensor = tensor
        self.place = place


def _copy_state(state: Any, keep_buffers: bool,
                deferred: Set[Tuple[str, int]]) -> Tuple[Any, bool]:
    """`state` with every container rebuilt, every other value deep-copied, and every tensor
    copied to CPU memory, except those whose storage is in `deferred`: they are left as
    _Deferred for _copy_deferred. Also returns whether any was."""
    torch = sys.modules.get("torch")  # tensors exist only once torch is imported
    tensor_type = getattr(torch, "Tensor", None)
    copies: Dict[int, Any] = {}  # id(tensor) -> its copy: a tensor met twice is saved once
    left: List[Tuple] = []

    def leaf(value: Any, place: Tuple) -> Any:
        if tensor_type is None or not isinstance(value, tensor_type):
            return _copy_value(value)
        if id(value) not in copies:
            if deferred and _step_guard.storage_key(value) in deferred:
                copies[id(value)] = _Deferred(value.detach(), place)
                left.append(place)
            else:
                copies[id(value)] = _copy_tensor(torch, value, place, keep_buffers)
        return copies[id(value)]

    return _map_leaves(state, (), leaf), bool(left)


def _copy_deferred(state: Any, keep_buffers: bool) -> Any:
    """`state` (from _copy_state) with its _Deferred tensors copied."""
    torch = sys.modules.get("torch")
    copies: Dict[int, Any] = {}

    def leaf(value: Any, _place: Tuple) -> Any:
        if not isinstance(value, _Deferred):
            return value  # already a private copy
        if id(value) not in copies:
            copies[id(value)] = _copy_tensor(torch, value.tensor, value.place, keep_buffers)
        return copies[id(value)]

    return _map_leaves(state, (), leaf)


def _map_leaves(value: Any, place: Tuple, leaf: Callable[[Any, Tuple], Any]) -> Any:
    """`value` with dicts, lists and tuples rebuilt and every other value replaced by
    leaf(value, place); place is the path of keys and indexes from the top."""
    if isinstance(value, dict):
        items = [(key, _map_leaves(item, place + (key,), leaf)) for key, item in value.items()]
        return _rebuild_dict(value, items)
    if isinstance(value, (list, tuple)):
        items = [_map_leaves(item, place + (index,), leaf) for index, item in enumerate(value)]
        return _rebuild_sequence(value, items)
    return leaf(value, place)


def _copy_tensor(torch: Any, tensor: Any, place: Tuple, keep_buffers: bool) -> Any:
    source = tensor.detach()
    # Only plain dense tensors are copied into kept buffers (not sparse, not views).
    reusable = keep_buffers and source.layout == torch.strided and source.is_contiguous()
    buffer = _buffers.get(place) if reusable else None
    if buffer is not None and buffer.dtype == source.dtype and buffer.shape == source.shape:
        return buffer.copy_(source)
    result = source.to("cpu", copy=True)
    if reusable:
        _buffers[place] = result
    return result


def _copy_value(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, float, complex, str, bytes)):
        return value
    try:
        return copy.deepcopy(value)
    except Exception:  # noqa: BLE001 - written as it is, later
        return value


def _rebuild_dict(original: dict, items: list) -> dict:
    """A dict of `original`'s type with `items`, and its attributes (a state_dict's
    OrderedDict has _metadata)."""
    try:
        if hasattr(original, "default_factory"):  # collections.defaultdict
            rebuilt = type(original)(original.default_factory)
        else:
            rebuilt = type(original)()
        rebuilt.update(items)
    except Exception:  # noqa: BLE001 - a subclass that cannot be made empty
        return dict(items)
    for name, value in getattr(original, "__dict__", {}).items():
        try:
            setattr(rebuilt, name, copy.deepcopy(value))
        except Exception:  # noqa: BLE001
            setattr(rebuilt, name, value)
    return rebuilt


def _rebuild_sequence(original: Any, items: list) -> Any:
    if type(original) is list:
        return items
    if type(original) is tuple:
        return tuple(items)
    try:
        if isinstance(original, tuple):
            if hasattr(original, "_fields"):  # a namedtuple
                return type(original)(*items)
            return type(original)(items)
        return type(original)(items)
    except Exception:  # noqa: BLE001
        return list(items) if isinstance(original, list) else tuple(items)


def _copy_and_write(handle: CheckpointHandle, folder: str, state: Any,
                    keep_buffers: bool) -> None:
    """The writer thread: copies what save_async deferred, opens the gate the optimizers
    wait at, then writes."""
    gate = handle._gate
    if gate is not None:
        try:
            state = _copy_deferred(state, keep_buffers)
        except Exception as error:  # noqa: BLE001 - e.g. a device error while copying
            _fail(handle, "cannot copy checkpoint step {} to CPU memory: {}".format(
                handle.step, _describe(error)))
            return
        finally:
            gate.open()  # never leaves a step() waiting
    _lower_priority()
    _write(handle, folder, state)


def _lower_priority() -> None:
    """Gives this thread (the writer, once its copy is done) at least WRITER_NICE, so that
    training's threads come first when they compete with the write for the CPU."""
    try:
        thread = threading.get_native_id()
        if os.getpriority(os.PRIO_PROCESS, thread) < WRITER_NICE:
            os.setpriority(os.PRIO_PROCESS, thread, WRITER_NICE)
    except (AttributeError, OSError):  # not Linux, or Python < 3.8
        pass


def _write(handle: CheckpointHandle, folder: str, state: Any) -> None:
    """Writes `state` as handle.step into `folder`, then tells."""
    step = handle.step
    final = handle.path
    temporary = os.path.join(folder, ".step-{}.tmp-{}-{}".format(
        step, socket.gethostname(), os.getpid()))
    try:
        try:
            _write_checkpoint(state, step, folder, temporary, final)
        except Exception as error:  # noqa: BLE001 - reported, never raised
            shutil.rmtree(temporary, ignore_errors=True)
            _fail(handle, _failure_text(step, final, error))
            return
        try:
            _advance_latest(folder, step)
        except Exception as error:  # noqa: BLE001
            _fail(handle, "checkpoint step {} was written to {}, but {} could not be "
                  "updated: {}".format(step, final, os.path.join(folder, LATEST),
                                       _describe(error)))
            return
        _remember_saved(folder, step)
        _tell_launcher("checkpoint-done", "{} {}".format(step, final))
        handle._finish(None)
    finally:
        if not handle.done():  # an error in the error handling itself
            handle._finish("checkpoint step {} failed".format(step))


class _StepExists(Exception):
    pass


def _write_checkpoint(state: Any, step: int, folder: str, temporary: str, final: str) -> None:
    _make_folder(folder)
    _remove_leftovers(folder)
    if os.path.lexists(final):
        raise _StepExists()
    if os.path.lexists(temporary):
        shutil.rmtree(temporary)
    os.mkdir(temporary)
    state_file = os.path.join(temporary, STATE_FILE)
    form = _write_state(state, state_file)
    meta = {
        "step": step,
        "time": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds"),
        "rank": _rank(),
        "bytes": os.path.getsize(state_file),
        "format": form,
    }
    meta_file = os.path.join(temporary, META_FILE)
    with open(meta_file, "w", encoding="utf-8") as out:
        json.dump(meta, out)
        out.write("\n")
        out.flush()
        os.fsync(out.fileno())
    _fsync_path(temporary)
    try:
        # Fails when step-<N> appeared meanwhile (a directory is never replaced by a
        # rename unless it is empty, and a checkpoint folder never is).
        os.rename(temporary, final)
    except OSError as error:
        if error.errno in (errno.EEXIST, errno.ENOTEMPTY, errno.EISDIR):
            raise _StepExists() from None
        raise
    _fsync_path(folder)


class _LatchedWrites:
    """The file torch.save writes to, whose write() never raises: the first error is kept in
    `error`, and later writes are dropped. torch's archive writer (1.13) writes the archive's end
    again from its destructor after a failed write, and an error there aborts the process
    (std::terminate: SIGABRT, found by `pai-launch drill` filling the disk); so a full disk
    must not reach torch as an exception."""

    def __init__(self, raw: Any) -> None:
        self._raw = raw
        self.error: Optional[OSError] = None

    def write(self, data: Any) -> int:
        size = memoryview(data).nbytes
        if self.error is None:
            try:
                self._raw.write(data)
            except OSError as error:
                self.error = error
        return size

    def flush(self) -> None:
        if self.error is None:
            try:
                self._raw.flush()
            except OSError as error:
                self.error = error


def _write_state(state: Any, path: str) -> str:
    """Writes `state` to `path` (torch.save when torch is importable, else pickle) and
    fsyncs it. Returns the format: "torch" or "pickle". Raises OSError when a write failed
    (no space left). Tests replace it to fail."""
    torch = _torch()
    if torch is not None:
        # A file object, not a name: torch's own file writer aborts the process when a write
        # fails (_LatchedWrites). Its large writes release the GIL all the same.
        with open(path, "wb") as raw:
            out = _LatchedWrites(raw)
            torch.save(state, out)
            out.flush()
            if out.error is not None:
                raise out.error
        form = "torch"
    else:
        with open(path, "wb") as out:
            pickle.dump(state, out, protocol=pickle.HIGHEST_PROTOCOL)
        form = "pickle"
    _fsync_path(path)
    return form


def _advance_latest(folder: str, step: int) -> bool:
    """Points checkpoints/latest at step-<step>, unless it names a step >= step already.
    Returns whether it moved."""
    directory = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        try:
            fcntl.flock(directory, fcntl.LOCK_EX)  # processes sharing the folder, one host
        except OSError:
            pass  # a file system without flock: the in-process lock still holds
        current = _pointer_step(folder)
        if current is not None and current >= step:
            return False
        temporary = os.path.join(folder, ".latest.tmp-{}-{}".format(
            socket.gethostname(), os.getpid()))
        try:
            with open(temporary, "w", encoding="utf-8") as out:
                out.write("step-{}\n".format(step))
                out.flush()
                os.fsync(out.fileno())
            os.rename(temporary, os.path.join(folder, LATEST))
        except BaseException:
            _unlink_quietly(temporary)
            raise
        os.fsync(directory)
        return True
    finally:
        os.close(directory)  # releases the flock


def _make_folder(folder: str) -> None:
    if os.path.isdir(folder):
        return
    os.makedirs(folder, exist_ok=True)
    _fsync_path(os.path.dirname(folder))


def _remove_leftovers(folder: str) -> None:
    """Removes temporary folders and files this host's dead processes (or this one) left,
    e.g. when killed in the middle of a save. Others' are left alone: they may be saving."""
    host = socket.gethostname()
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        match = _TEMPORARY.match(name)
        if not match or match.group(1) != host:
            continue
        pid = int(match.group(2))
        if pid != os.getpid() and _alive(pid):
            continue
        path = os.path.join(folder, name)
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, ignore_errors=True)
        else:
            _unlink_quietly(path)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # EPERM: someone else's process
    return True


def _fsync_path(path: str) -> None:
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def _unlink_quietly(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _rank() -> Any:
    rank = os.environ.get("RANK")
    if rank is None:
        return None
    try:
        return int(rank)
    except ValueError:
        return rank


def _torch() -> Any:
    """The torch module, or None when it cannot be imported."""
    global _torch_module
    if _torch_module is None:
        try:
            import torch  # noqa: PLC0415 - optional, and slow to import
        except Exception:  # noqa: BLE001 - ImportError, or a broken installation
            _torch_module = False
        else:
            _torch_module = torch
    return _torch_module or None


def _failure_text(step: int, final: str, error: BaseException) -> str:
    if isinstance(error, _StepExists):
        return ("checkpoint step {} not written: {} already exists (saved before, or by "
                "another rank); it was left as it is".format(step, final))
    return "cannot write checkpoint step {} to {}: {}".format(step, final, _describe(error))


def _describe(error: BaseException) -> str:
    if isinstance(error, OSError):
        return str(error)
    text = str(error).strip().splitlines()
    return "{}: {}".format(type(error).__name__, text[0] if text else "")


def _fail(handle: CheckpointHandle, problem: str, tell: bool = True) -> None:
    """Records `problem` on the handle, warns, and tells the launcher."""
    try:
        warnings.warn("pai checkpoint: " + problem, job_monitor.MonitorWarning, stacklevel=2)
    except Exception:  # noqa: BLE001 - warnings turned into errors (-W error)
        pass
    if tell and handle.step is not None:
        _tell_launcher("checkpoint-failed", "{} {}".format(handle.step, problem))
    handle._finish(problem)


def _tell_launcher(verb: str, argument: str) -> None:
    """Sends one request on the job monitor's connection, under pai-launch only. A failure
    is warned about there (once), never raised."""
    try:
        session = job_monitor._session()
        if session._connection is None:
            return  # not under pai-launch: nothing to tell, nothing to warn about
        session.send(verb, argument)
    except Exception:  # noqa: BLE001 - must not disturb the save
        pass


def _remember_saved(folder: str, step: int) -> None:
    key = os.path.realpath(folder)
    if _saved_here.get(key, -1) < step:
        _saved_here[key] = step


def _wait_at_exit() -> None:
    handle = _in_flight
    if handle is not None and handle._thread is not None:
        handle._thread.join()


atexit.register(_wait_at_exit)


def _reset_in_child() -> None:
    # The writer thread does not exist in a forked child, and a lock may have been held.
    global _save_lock, _in_flight
    _save_lock = threading.Lock()
    _in_flight = None
    _step_guard.release()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reset_in_child)


# --- Loading ---------------------------------------------------------------------------------


def _choose(dir: Optional[str]) -> Optional[str]:  # noqa: A002
    variable = os.environ.get("PAI_LATEST_CHECKPOINT") or None
    if variable is not None:
        variable = os.path.abspath(variable)
    if dir is None and not os.environ.get("PAI_OUTPUT_DIR") and variable is not None:
        folder = os.path.dirname(variable)
    else:
        folder = os.path.join(_output_dir(dir), CHECKPOINTS)
    if (variable is not None and _complete(variable)
            and _STEP_FOLDER.match(os.path.basename(variable))
            and _same_path(os.path.dirname(variable), folder)
            and _saved_here.get(os.path.realpath(folder), -1) <= _step_of(variable)):
        return variable
    pointed = _pointer_step(folder)
    if pointed is not None:
        path = os.path.join(folder, "step-{}".format(pointed))
        if _complete(path):
            return path
    best = None
    try:
        names = os.listdir(folder)
    except OSError:
        return None
    for name in names:
        match = _STEP_FOLDER.match(name)
        if match and (best is None or int(match.group(1)) > best):
            if _complete(os.path.join(folder, name)):
                best = int(match.group(1))
    return None if best is None else os.path.join(folder, "step-{}".format(best))


def _pointer_step(folder: str) -> Optional[int]:
    """The step checkpoints/latest names, or None (missing or not a pointer)."""
    try:
        with open(os.path.join(folder, LATEST), encoding="utf-8") as pointer:
            text = pointer.read(256).strip()
    except (OSError, UnicodeDecodeError):
        return None
    match = _STEP_FOLDER.match(text)
    return int(match.group(1)) if match else None


def _complete(path: str) -> bool:
    return (os.path.isdir(path) and os.path.isfile(os.path.join(path, STATE_FILE))
            and os.path.isfile(os.path.join(path, META_FILE)))


def _same_path(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _step_of(path: str) -> int:
    return int(_STEP_FOLDER.match(os.path.basename(path)).group(1))


def _load_state(path: str, map_location: Any, load_options: Dict[str, Any]) -> Any:
    state_file = os.path.join(path, STATE_FILE)
    try:
        with open(os.path.join(path, META_FILE), encoding="utf-8") as meta_file:
            form = json.load(meta_file).get("format")
    except (OSError, ValueError, AttributeError):
        form = None
    if form is None:
        with open(state_file, "rb") as state:
            form = "torch" if state.read(2) == b"PK" else "pickle"
    if form == "pickle":
        with open(state_file, "rb") as state:
            return pickle.load(state)
    torch = _torch()
    if torch is None:
        raise RuntimeError("pai.checkpoint: {} was written by torch.save, and torch cannot "
                           "be imported".format(state_file))
    return torch.load(state_file, map_location=map_location, **load_options)
