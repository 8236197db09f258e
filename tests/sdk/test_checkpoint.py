"""pai.checkpoint: asynchronous saves, the `latest` pointer, what the launcher is told, and
resuming after a save was killed."""

import collections
import datetime
import errno
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
import unittest
import warnings
from unittest import mock

# Also run as `python3 -m unittest tests/sdk/test_checkpoint.py` from the repository root.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from sdk_path import SDK_DIR  # before pai: puts this checkout's sdk/python first
from fake_launcher import FakeLauncher
from pai import checkpoint
from pai import job_monitor as jm

try:
    import torch
except ImportError:  # the tests that need tensors are skipped
    torch = None

needs_torch = unittest.skipIf(torch is None, "torch is not installed")

ENVIRONMENT = ("PAI_OUTPUT_DIR", "PAI_CONTROL_SOCKET", "PAI_LATEST_CHECKPOINT", "RANK")


class Gate:
    """A state value that holds its save in the middle: pickling it, which the writer thread
    does, waits until `opened` is set. It is loaded back as 0."""

    def __init__(self) -> None:
        self.opened = threading.Event()

    def __deepcopy__(self, memo):
        return self  # the copy save_async makes shares the event

    def __reduce__(self):
        if threading.current_thread() is not threading.main_thread():
            self.opened.wait(30)
        return (int, (0,))


def forget_session() -> None:
    """Makes the next request start a new job monitor session from PAI_CONTROL_SOCKET."""
    session = jm._current_session
    if session is not None and session._connection is not None:
        session._connection.close()
    jm._current_session = None


def restore_environment(saved: dict) -> None:
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


class CheckpointTestCase(unittest.TestCase):
    """Each test has its own PAI_OUTPUT_DIR and no launcher, unless it starts one."""

    def setUp(self) -> None:
        self.directory = tempfile.mkdtemp(prefix="pai-sdk-test-")
        self.addCleanup(shutil.rmtree, self.directory, True)
        self.addCleanup(restore_environment, {name: os.environ.get(name)
                                              for name in ENVIRONMENT})
        for name in ENVIRONMENT:
            os.environ.pop(name, None)
        self.output = os.path.join(self.directory, "out")
        os.environ["PAI_OUTPUT_DIR"] = self.output
        self.checkpoints = os.path.join(self.output, "checkpoints")
        forget_session()
        self.addCleanup(forget_session)
        self.addCleanup(self.forget_saves)
        self.forget_saves()
        self.warnings = warnings.catch_warnings(record=True)
        self.caught = self.warnings.__enter__()
        warnings.simplefilter("always")
        self.addCleanup(self.warnings.__exit__, None, None, None)

    @staticmethod
    def forget_saves() -> None:
        """Waits for a save still in flight, and forgets what this process saved."""
        checkpoint._wait_at_exit()
        checkpoint._in_flight = None
        checkpoint._saved_here.clear()
        checkpoint._buffers.clear()

    def start_launcher(self) -> FakeLauncher:
        launcher = FakeLauncher(self.directory)
        self.addCleanup(launcher.close)
        os.environ["PAI_CONTROL_SOCKET"] = launcher.path
        forget_session()
        return launcher

    def monitor_warnings(self):
        return [str(w.message) for w in self.caught
                if issubclass(w.category, jm.MonitorWarning)]

    def step_path(self, step: int) -> str:
        return os.path.join(self.checkpoints, "step-{}".format(step))

    def latest(self) -> str:
        with open(os.path.join(self.checkpoints, "latest"), encoding="utf-8") as pointer:
            return pointer.read()

    def entries(self):
        return sorted(os.listdir(self.checkpoints))

    def save(self, state, step: int, **options) -> checkpoint.CheckpointHandle:
        handle = checkpoint.save_async(state, step, **options)
        self.assertTrue(handle.wait(60), handle.error)
        return handle


class SaveAndLoadTest(CheckpointTestCase):
    def test_plain_values_round_trip(self) -> None:
        state = {"epoch": 3, "name": "run", "lr": [0.1, 0.01], "pair": (1, None),
                 "nested": {"seen": {1, 2}}}
        handle = self.save(state, 3)
        self.assertTrue(handle.done())
        self.assertIsNone(handle.error)
        self.assertEqual(handle.step, 3)
        self.assertEqual(handle.path, self.step_path(3))
        self.assertEqual(sorted(os.listdir(handle.path)), ["meta.json", "state.pt"])
        self.assertEqual(self.latest(), "step-3\n")
        self.assertEqual(self.entries(), ["latest", "step-3"])
        self.assertEqual(checkpoint.load_latest(), (3, state))
        self.assertEqual(checkpoint.latest_path(), self.step_path(3))
        self.assertEqual(self.monitor_warnings(), [])

    def test_step_zero_and_no_padding(self) -> None:
        self.save({"a": 1}, 0)
        self.save({"a": 2}, 120)
        self.assertEqual(self.entries(), ["latest", "step-0", "step-120"])
        self.assertEqual(checkpoint.load_latest(), (120, {"a": 2}))

    def test_meta_json(self) -> None:
        os.environ["RANK"] = "3"
        handle = self.save({"a": [1, 2, 3]}, 8)
        with open(os.path.join(handle.path, "meta.json"), encoding="utf-8") as meta_file:
            meta = json.load(meta_file)
        self.assertEqual(meta["step"], 8)
        self.assertEqual(meta["rank"], 3)
        self.assertEqual(meta["bytes"], os.path.getsize(os.path.join(handle.path, "state.pt")))
        self.assertIn(meta["format"], ("torch", "pickle"))
        written = datetime.datetime.fromisoformat(meta["time"])
        self.assertLess(abs(datetime.datetime.now(datetime.timezone.utc) - written),
                        datetime.timedelta(minutes=5))

    def test_without_torch_state_is_pickled(self) -> None:
        with mock.patch.object(checkpoint, "_torch", lambda: None):
            handle = self.save({"a": [1, 2], "b": "x"}, 1)
            with open(os.path.join(handle.path, "meta.json"), encoding="utf-8") as meta_file:
                self.assertEqual(json.load(meta_file)["format"], "pickle")
            self.assertEqual(checkpoint.load_latest(), (1, {"a": [1, 2], "b": "x"}))
        self.assertEqual(checkpoint.load_latest(), (1, {"a": [1, 2], "b": "x"}))

    @needs_torch
    def test_tensors_round_trip(self) -> None:
        weights = collections.OrderedDict(w=torch.randn(4, 5), b=torch.arange(5))
        weights._metadata = {"": {"version": 1}}  # as Module.state_dict() has
        shared = torch.ones(3)
        state = {"model": weights, "optim": {"state": {0: {"m": torch.zeros(4, 5)}},
                                             "param_groups": [{"lr": 0.1, "params": [0]}]},
                 "twice": [shared, shared], "step": 7,
                 "view": torch.arange(10.0)[::2]}
        self.save(state, 7)
        step, loaded = checkpoint.load_latest()
        self.assertEqual(step, 7)
        self.assertIsInstance(loaded["model"], collections.OrderedDict)
        self.assertEqual(loaded["model"]._metadata, {"": {"version": 1}})
        self.assertTrue(torch.equal(loaded["model"]["w"], weights["w"]))
        self.assertTrue(torch.equal(loaded["model"]["b"], weights["b"]))
        self.assertTrue(torch.equal(loaded["optim"]["state"][0]["m"], torch.zeros(4, 5)))
        self.assertEqual(loaded["optim"]["param_groups"], state["optim"]["param_groups"])
        self.assertIs(loaded["twice"][0], loaded["twice"][1])
        self.assertTrue(torch.equal(loaded["view"], torch.tensor([0.0, 2, 4, 6, 8])))
        self.assertEqual(loaded["step"], 7)
        self.assertEqual(loaded["model"]["w"].device.type, "cpu")

    @needs_torch
    def test_what_is_written_is_a_copy(self) -> None:
        weights = torch.zeros(1000)
        values = [1, 2]
        gate = Gate()
        handle = checkpoint.save_async({"w": weights, "values": values, "gate": gate}, 1)
        self.assertFalse(handle.done())  # held by the gate: nothing written yet
        weights.add_(1)
        values.append(3)
        gate.opened.set()
        self.assertTrue(handle.wait(60), handle.error)
        _, loaded = checkpoint.load_latest()
        self.assertTrue(torch.equal(loaded["w"], torch.zeros(1000)))
        self.assertEqual(loaded["values"], [1, 2])
        self.assertEqual(loaded["gate"], 0)

    @needs_torch
    def test_keep_buffers_reuses_the_copies(self) -> None:
        weights = torch.zeros(256)
        self.save({"w": weights}, 1, keep_buffers=True)
        buffer = checkpoint._buffers[("w",)]
        weights.add_(2)
        self.save({"w": weights}, 2, keep_buffers=True)
        self.assertIs(checkpoint._buffers[("w",)], buffer)
        self.assertTrue(torch.equal(checkpoint.load_latest()[1]["w"], torch.full((256,), 2.0)))
        self.save({"w": weights}, 3)  # without: the kept copies are let go
        self.assertEqual(checkpoint._buffers, {})

    @unittest.skipUnless(hasattr(os, "getpriority"), "no per-thread nice here")
    def test_the_writer_runs_at_a_lower_priority(self) -> None:
        class Niceness:
            seen = []

            def __deepcopy__(self, memo):
                return self

            def __reduce__(self):
                thread = threading.get_native_id()
                self.seen.append((thread, os.getpriority(os.PRIO_PROCESS, thread)))
                return (int, (0,))

        self.save({"n": Niceness()}, 1)
        main = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
        self.assertEqual(len(Niceness.seen), 1)
        writer, nice = Niceness.seen[0]
        self.assertNotEqual(writer, threading.get_native_id())
        self.assertEqual(nice, max(main, checkpoint.WRITER_NICE))
        self.assertEqual(os.getpriority(os.PRIO_PROCESS, threading.get_native_id()), main)

    def test_the_dir_argument(self) -> None:
        os.environ.pop("PAI_OUTPUT_DIR")
        other = os.path.join(self.directory, "rank-1")
        handle = self.save({"a": 1}, 2, dir=other)
        self.assertEqual(handle.path, os.path.join(other, "checkpoints", "step-2"))
        self.assertEqual(checkpoint.load_latest(dir=other), (2, {"a": 1}))
        self.assertEqual(checkpoint.latest_path(dir=other), handle.path)

    def test_no_folder_raises_at_the_call(self) -> None:
        launcher = self.start_launcher()
        os.environ.pop("PAI_OUTPUT_DIR")
        with self.assertRaises(ValueError):
            checkpoint.save_async({"a": 1}, 1)
        with self.assertRaises(ValueError):
            checkpoint.load_latest()
        self.assertEqual(launcher.lines, [])

    def test_a_bad_step_is_a_failed_handle(self) -> None:
        launcher = self.start_launcher()
        for step in (-1, "3", 1.5, None, True):
            handle = checkpoint.save_async({"a": 1}, step)
            self.assertTrue(handle.done())
            self.assertFalse(handle.wait())
            self.assertIn("integer step >= 0", handle.error)
        self.assertEqual(launcher.lines, [])
        self.assertFalse(os.path.exists(self.checkpoints))

    def test_a_finished_script_does_not_lose_its_last_checkpoint(self) -> None:
        result = run_python(self.output, """
            import time
            from pai import checkpoint
            class Slow:
                def __deepcopy__(self, memo):
                    return self
                def __reduce__(self):
                    time.sleep(1)
                    return (int, (5,))
            checkpoint.save_async({"slow": Slow()}, 4)
            print("returned", flush=True)
            """)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout, "returned\n")
        self.assertEqual(checkpoint.load_latest(), (4, {"slow": 5}))


class HeldCopy:
    """Replaces checkpoint._copy_tensor: copies made by the writer thread (the deferred
    ones) wait until `release` is set, or raise when `error` is set."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.error = None
        self.in_thread = []  # places copied by the writer thread
        self.original = checkpoint._copy_tensor

    def __call__(self, torch_module, tensor, place, keep_buffers):
        if threading.current_thread() is not threading.main_thread():
            self.in_thread.append(place)
            self.release.wait(30)
            if self.error is not None:
                raise self.error
        return self.original(torch_module, tensor, place, keep_buffers)


@needs_torch
class OverlappedCopyTest(CheckpointTestCase):
    """optimizer=: the optimizer's tensors are copied while training goes on, and its next
    step() waits for the copy."""

    def setUp(self) -> None:
        super().setUp()
        torch.manual_seed(0)
        self.model = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.BatchNorm1d(8))
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=0.1)
        self.train_step()  # Adam's state exists from the first step on
        self.held = HeldCopy()
        patcher = mock.patch.object(checkpoint, "_copy_tensor", self.held)
        patcher.start()
        self.addCleanup(patcher.stop)
        self.addCleanup(self.held.release.set)

    def train_step(self, step: bool = True) -> None:
        loss = self.model(torch.randn(16, 8)).square().mean()  # BatchNorm's statistics move
        self.optimizer.zero_grad()
        loss.backward()
        if step:
            self.optimizer.step()

    def state(self):
        return {"model": self.model.state_dict(), "optim": self.optimizer.state_dict()}

    def step_in_thread(self) -> threading.Thread:
        stepper = threading.Thread(target=self.optimizer.step)
        stepper.start()
        self.addCleanup(stepper.join, 30)
        return stepper

    def test_the_step_waits_and_the_checkpoint_is_the_state_at_the_call(self) -> None:
        expected = copy_of(self.state())
        handle = checkpoint.save_async(self.state(), 1, optimizer=self.optimizer)
        self.assertFalse(handle.copied())
        self.assertFalse(handle.wait_copied(0.05))
        self.train_step(step=False)  # forward (BatchNorm's buffers change) and backward
        stepper = self.step_in_thread()
        stepper.join(0.3)
        self.assertTrue(stepper.is_alive(), "step() did not wait for the copy")
        self.held.release.set()
        stepper.join(30)
        self.assertFalse(stepper.is_alive())
        self.assertTrue(handle.wait(60), handle.error)
        self.assertTrue(handle.copied())
        self.assertGreaterEqual(handle.stall_seconds, 0.25)
        _, loaded = checkpoint.load_latest()
        assert_same_state(self, loaded, expected)
        changed = self.model.state_dict()["0.weight"]
        self.assertFalse(torch.equal(loaded["model"]["0.weight"], changed))  # step() ran after

    def test_only_the_optimizers_tensors_are_deferred(self) -> None:
        handle = checkpoint.save_async(self.state(), 1, optimizer=self.optimizer)
        self.held.release.set()
        self.assertTrue(handle.wait(60), handle.error)
        deferred = set(self.held.in_thread)
        self.assertIn(("model", "0.weight"), deferred)
        self.assertIn(("model", "1.bias"), deferred)
        self.assertIn(("optim", "state", 0, "exp_avg"), deferred)
        self.assertIn(("optim", "state", 0, "step"), deferred)
        self.assertNotIn(("model", "1.running_mean"), deferred)  # changed by forward
        self.assertNotIn(("model", "1.num_batches_tracked"), deferred)

    def test_without_an_optimizer_nothing_is_deferred(self) -> None:
        handle = checkpoint.save_async(self.state(), 1)
        self.assertTrue(handle.copied())
        self.assertTrue(handle.wait(60), handle.error)
        self.assertEqual(self.held.in_thread, [])

    def test_a_failed_copy_lets_the_step_go_and_fails_the_save(self) -> None:
        launcher = self.start_launcher()
        self.held.error = RuntimeError("CUDA error: an illegal memory access")
        handle = checkpoint.save_async(self.state(), 3, optimizer=self.optimizer)
        self.held.release.set()
        stepper = self.step_in_thread()
        stepper.join(30)
        self.assertFalse(stepper.is_alive())
        self.assertFalse(handle.wait(60))
        self.assertIn("cannot copy checkpoint step 3 to CPU memory: RuntimeError: CUDA error",
                      handle.error)
        self.assertEqual(launcher.lines[-1].split(" ", 2)[:2], ["checkpoint-failed", "3"])
        self.assertFalse(os.path.exists(self.step_path(3)))
        self.assertEqual(os.listdir(self.checkpoints) if os.path.isdir(self.checkpoints)
                         else [], [])

    def test_the_guard_is_installed_once_and_lr_schedulers_still_count_steps(self) -> None:
        for step in (1, 2):
            self.held.release.set()
            self.assertTrue(checkpoint.save_async(self.state(), step,
                                                  optimizer=[self.optimizer]).wait(60))
        scheduler = torch.optim.lr_scheduler.StepLR(self.optimizer, step_size=1)
        counted = self.optimizer._step_count
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            self.train_step()
            scheduler.step()
        self.assertEqual(self.optimizer._step_count, counted + 1)
        self.assertEqual([str(w.message) for w in caught if "lr_scheduler" in str(w.message)],
                         [])
        self.assertAlmostEqual(self.optimizer.param_groups[0]["lr"], 0.01)

    def test_something_else_than_an_optimizer_is_refused(self) -> None:
        with self.assertRaisesRegex(TypeError, "optimizer= takes a torch.optim.Optimizer"):
            checkpoint.save_async(self.state(), 1, optimizer=self.model)
        self.assertFalse(os.path.exists(self.checkpoints))


def copy_of(state):
    """A deep copy, tensors cloned."""
    if isinstance(state, dict):
        return {key: copy_of(value) for key, value in state.items()}
    if isinstance(state, list):
        return [copy_of(value) for value in state]
    return state.clone() if torch is not None and isinstance(state, torch.Tensor) else state


def assert_same_state(test, loaded, expected) -> None:
    if isinstance(expected, dict):
        test.assertEqual(sorted(loaded, key=str), sorted(expected, key=str))
        for key in expected:
            assert_same_state(test, loaded[key], expected[key])
    elif isinstance(expected, torch.Tensor):
        test.assertTrue(torch.equal(loaded, expected), (loaded, expected))
    else:
        test.assertEqual(loaded, expected)


class LatestTest(CheckpointTestCase):
    def test_latest_moves_forward_only(self) -> None:
        self.save({"a": 5}, 5)
        self.save({"a": 3}, 3)
        self.assertEqual(self.latest(), "step-5\n")
        self.assertEqual(self.entries(), ["latest", "step-3", "step-5"])
        self.assertEqual(checkpoint.load_latest(), (5, {"a": 5}))
        self.save({"a": 6}, 6)
        self.assertEqual(self.latest(), "step-6\n")

    def test_a_second_save_waits_for_the_first(self) -> None:
        gate = Gate()
        first = checkpoint.save_async({"gate": gate}, 1)
        returned = threading.Event()
        first_done_at_return = []

        def second_save():
            handle = checkpoint.save_async({"a": 2}, 2)
            first_done_at_return.append(first.done())
            returned.set()
            handle.wait(60)

        thread = threading.Thread(target=second_save)
        thread.start()
        self.assertFalse(returned.wait(0.5))
        self.assertFalse(first.done())
        gate.opened.set()
        self.assertTrue(returned.wait(60))
        thread.join(60)
        self.assertEqual(first_done_at_return, [True])
        self.assertTrue(first.wait(0))
        self.assertEqual(self.latest(), "step-2\n")

    def test_a_missing_latest_target_falls_back_to_the_newest_complete(self) -> None:
        self.save({"a": 1}, 1)
        self.save({"a": 2}, 2)
        os.makedirs(self.step_path(3))  # incomplete: no meta.json
        with open(os.path.join(self.step_path(3), "state.pt"), "wb"):
            pass
        leftover = os.path.join(self.checkpoints, ".step-7.tmp-elsewhere-1")
        os.makedirs(leftover)
        for name in ("state.pt", "meta.json"):
            with open(os.path.join(leftover, name), "w"):
                pass
        with open(os.path.join(self.checkpoints, "latest"), "w") as pointer:
            pointer.write("step-9\n")
        self.assertEqual(checkpoint.load_latest(), (2, {"a": 2}))
        os.unlink(os.path.join(self.checkpoints, "latest"))
        self.assertEqual(checkpoint.load_latest(), (2, {"a": 2}))
        with open(os.path.join(self.checkpoints, "latest"), "w") as pointer:
            pointer.write("garbage")
        self.assertEqual(checkpoint.latest_path(), self.step_path(2))
        with open(os.path.join(self.checkpoints, "latest"), "w") as pointer:
            pointer.write("step-1\n")
        self.assertEqual(checkpoint.load_latest(), (1, {"a": 1}))

    def test_nothing_to_load(self) -> None:
        self.assertIsNone(checkpoint.load_latest())
        self.assertIsNone(checkpoint.latest_path())
        os.makedirs(os.path.join(self.checkpoints, ".step-1.tmp-host-1"))
        self.assertIsNone(checkpoint.load_latest())

    def test_pai_latest_checkpoint_is_preferred(self) -> None:
        self.save({"a": 1}, 1)
        self.save({"a": 2}, 2)
        self.forget_saves()  # a restarted process
        os.environ["PAI_LATEST_CHECKPOINT"] = self.step_path(1)
        self.assertEqual(checkpoint.load_latest(), (1, {"a": 1}))
        os.environ.pop("PAI_OUTPUT_DIR")  # the variable alone is enough
        self.assertEqual(checkpoint.load_latest(), (1, {"a": 1}))
        os.environ["PAI_OUTPUT_DIR"] = self.output
        # ... until this process saves a newer one.
        self.save({"a": 3}, 3)
        self.assertEqual(checkpoint.load_latest(), (3, {"a": 3}))

    def test_an_invalid_pai_latest_checkpoint_is_ignored(self) -> None:
        self.save({"a": 1}, 1)
        self.save({"a": 2}, 2)
        for variable in (self.step_path(7), self.checkpoints, "relative/step-1"):
            os.environ["PAI_LATEST_CHECKPOINT"] = variable
            self.assertEqual(checkpoint.load_latest(), (2, {"a": 2}), variable)
        # Another checkpoints folder (a per-rank dir=) does not use it.
        os.environ["PAI_LATEST_CHECKPOINT"] = self.step_path(1)
        other = os.path.join(self.directory, "rank-1")
        self.assertIsNone(checkpoint.load_latest(dir=other))


class LauncherTest(CheckpointTestCase):
    def test_begin_then_done(self) -> None:
        launcher = self.start_launcher()
        gate = Gate()
        handle = checkpoint.save_async({"gate": gate}, 4)
        # Before it returned: the save began, and training resumed while it is written.
        self.assertEqual(launcher.lines, ["checkpoint-begin 4", "checkpoint-resumed 4"])
        gate.opened.set()
        self.assertTrue(handle.wait(60), handle.error)
        self.assertEqual(launcher.lines, ["checkpoint-begin 4", "checkpoint-resumed 4",
                                          "checkpoint-done 4 " + self.step_path(4)])
        self.assertTrue(os.path.isabs(self.step_path(4)))
        self.assertEqual(launcher.connections, 1)

    def test_one_connection_with_the_job_monitor(self) -> None:
        launcher = self.start_launcher()
        jm.report_step(1)
        self.save({"a": 1}, 1)
        jm.report_step(2)
        self.assertEqual([line.split(" ")[0] for line in launcher.lines],
                         ["progress", "checkpoint-begin", "checkpoint-resumed",
                          "checkpoint-done", "progress"])
        self.assertEqual(launcher.connections, 1)

    def test_a_refusing_launcher_does_not_disturb_the_save(self) -> None:
        launcher = self.start_launcher()
        launcher.reply = lambda line: "error unknown request"
        self.save({"a": 1}, 1)
        self.assertEqual(checkpoint.load_latest(), (1, {"a": 1}))
        self.assertEqual(len(launcher.lines), 3)
        self.assertTrue(any("refused 'checkpoint-begin'" in text
                            for text in self.monitor_warnings()), self.monitor_warnings())

    def test_a_gone_launcher_does_not_disturb_the_save(self) -> None:
        launcher = self.start_launcher()
        launcher.close()
        self.save({"a": 1}, 1)
        self.assertEqual(checkpoint.load_latest(), (1, {"a": 1}))

    def test_outside_pai_nothing_is_sent_or_warned(self) -> None:
        self.save({"a": 1}, 1)
        self.assertIsNone(jm._current_session._connection)
        self.assertEqual(self.monitor_warnings(), [])


class FailureTest(CheckpointTestCase):
    def assert_failed_cleanly(self, handle, launcher, step: int, words: str) -> None:
        self.assertTrue(handle.done())
        self.assertFalse(handle.wait())
        self.assertIn(words, handle.error)
        # Resumed or not (a failure in the background write comes after it, one while copying
        # before it), the save ends failed.
        told = [line for line in launcher.lines if not line.startswith("checkpoint-resumed ")]
        self.assertEqual(told[-2:], [
            "checkpoint-begin {}".format(step),
            _one_line("checkpoint-failed {} {}".format(step, handle.error))])
        self.assertTrue(any(words in text for text in self.monitor_warnings()),
                        self.monitor_warnings())
        self.assertEqual([name for name in self.entries() if ".tmp" in name], [])

    def test_a_failed_write_is_kept_not_raised_into_torch(self) -> None:
        class Disk:
            def __init__(self) -> None:
                self.written = 0

            def write(self, data) -> int:
                if self.written + len(data) > 10:
                    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
                self.written += len(data)
                return len(data)

            def flush(self) -> None:
                raise AssertionError("flushed after a failed write")

        disk = Disk()
        out = checkpoint._LatchedWrites(disk)
        self.assertEqual(out.write(b"12345678"), 8)
        self.assertEqual(out.write(memoryview(b"abcdef")), 6)  # the disk is full: kept
        self.assertEqual(out.error.errno, errno.ENOSPC)
        self.assertEqual(out.write(b"xy"), 2)  # dropped, not raised
        out.flush()
        self.assertEqual(disk.written, 8)

    @needs_torch
    def test_torch_state_on_a_full_disk_raises_not_aborts(self) -> None:
        # torch 1.13's own file writer aborts the process (SIGABRT) when a write fails, so this
        # runs in a child: the disk fills after 100 bytes.
        code = textwrap.dedent("""
            import errno, os, sys
            sys.path.insert(0, sys.argv[1])
            import torch
            from pai import checkpoint

            class FullDisk:
                def __init__(self, path, mode):
                    self.written = 0
                def __enter__(self):
                    return self
                def __exit__(self, *exc):
                    return False
                def write(self, data):
                    size = memoryview(data).nbytes
                    if self.written + size > 100:
                        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
                    self.written += size
                    return size
                def flush(self):
                    pass

            checkpoint.open = FullDisk
            try:
                checkpoint._write_state({"w": torch.zeros(4096)}, sys.argv[2])
            except OSError as error:
                print("raised", errno.errorcode[error.errno])
            else:
                print("no error")
        """)
        child = subprocess.run(
            [sys.executable, "-c", code, SDK_DIR, os.path.join(self.checkpoints, "state.pt")],
            capture_output=True, text=True, timeout=120, check=False)
        self.assertEqual((child.returncode, child.stdout.strip()), (0, "raised ENOSPC"),
                         child.stderr[-2000:])

    def test_no_space_left(self) -> None:
        launcher = self.start_launcher()
        self.save({"a": 1}, 1)

        def no_space(state, path):
            with open(path, "wb") as out:
                out.write(b"partial")
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), path)

        with mock.patch.object(checkpoint, "_write_state", no_space):
            handle = checkpoint.save_async({"a": 2}, 2)  # does not raise
            handle.wait(60)
        self.assert_failed_cleanly(handle, launcher, 2, "No space left on device")
        self.assertFalse(os.path.exists(self.step_path(2)))
        self.assertEqual(self.latest(), "step-1\n")
        self.assertEqual(checkpoint.load_latest(), (1, {"a": 1}))
        self.save({"a": 2}, 2)  # and the next save works
        self.assertEqual(self.latest(), "step-2\n")

    def test_an_unpicklable_state(self) -> None:
        launcher = self.start_launcher()
        handle = checkpoint.save_async({"f": threading.Lock()}, 1)
        handle.wait(60)
        self.assert_failed_cleanly(handle, launcher, 1, "pickle")
        self.assertEqual(self.entries(), [])

    @unittest.skipIf(os.geteuid() == 0, "root writes into read-only folders")
    def test_a_read_only_folder(self) -> None:
        launcher = self.start_launcher()
        self.save({"a": 1}, 1)
        os.chmod(self.checkpoints, 0o555)
        self.addCleanup(os.chmod, self.checkpoints, 0o755)
        handle = checkpoint.save_async({"a": 2}, 2)
        handle.wait(60)
        self.assert_failed_cleanly(handle, launcher, 2, "Permission denied")
        self.assertEqual(self.latest(), "step-1\n")

    def test_an_existing_step_is_left_intact(self) -> None:
        launcher = self.start_launcher()
        os.makedirs(self.step_path(6))
        with open(os.path.join(self.step_path(6), "state.pt"), "w") as other:
            other.write("another rank's")
        handle = checkpoint.save_async({"a": 6}, 6)
        handle.wait(60)
        self.assert_failed_cleanly(handle, launcher, 6, "already exists")
        with open(os.path.join(self.step_path(6), "state.pt")) as other:
            self.assertEqual(other.read(), "another rank's")
        self.assertEqual(sorted(os.listdir(self.step_path(6))), ["state.pt"])
        self.assertFalse(os.path.exists(os.path.join(self.checkpoints, "latest")))

    def test_warnings_as_errors_still_do_not_raise(self) -> None:
        with mock.patch.object(checkpoint, "_write_state", _raise_enospc):
            warnings.simplefilter("error")
            handle = checkpoint.save_async({"a": 1}, 1)
            self.assertFalse(handle.wait(60))
        self.assertIn("No space", handle.error)


class KilledSaveTest(CheckpointTestCase):
    """kill -9 in the middle of a save never leaves `latest` naming a partial checkpoint."""

    def start_saver(self, second_state: str) -> subprocess.Popen:
        """A process that saves step 1 completely, prints "saved 1", then starts saving
        step 2 with `second_state` (Python source) and sleeps."""
        script = textwrap.dedent("""
            import sys, time
            from pai import checkpoint
            try:
                import torch
            except ImportError:
                torch = None
            class Slow:  # holds the writer in the middle of state.pt
                def __deepcopy__(self, memo):
                    return self
                def __reduce__(self):
                    time.sleep(600)
            first = {"values": list(range(100)),
                     "w": torch.arange(1000.0) if torch else None}
            assert checkpoint.save_async(first, 1).wait()
            print("saved 1", flush=True)
            checkpoint.save_async(SECOND, 2)
            time.sleep(600)
            """).replace("SECOND", second_state)
        process = subprocess.Popen([sys.executable, "-c", script], env=child_env(self.output),
                                   stdout=subprocess.PIPE, universal_newlines=True)
        self.addCleanup(_kill_quietly, process)
        self.assertEqual(process.stdout.readline(), "saved 1\n")
        process.stdout.close()
        return process

    def kill_while_writing(self, process: subprocess.Popen, size: int) -> str:
        """SIGKILLs `process` once its step 2 temporary folder holds a state.pt of at least
        `size` bytes; returns that folder."""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            for name in os.listdir(self.checkpoints):
                state_file = os.path.join(self.checkpoints, name, "state.pt")
                if name.startswith(".step-2.tmp-") and _size(state_file) >= size:
                    process.send_signal(signal.SIGKILL)
                    process.wait(60)
                    return os.path.join(self.checkpoints, name)
            time.sleep(0.002)
        self.fail("the step 2 temporary folder did not appear")

    def assert_step_1_is_what_we_resume_from(self) -> None:
        self.assertEqual(self.latest(), "step-1\n")
        step, state = checkpoint.load_latest()
        self.assertEqual(step, 1)
        self.assertEqual(state["values"], list(range(100)))
        if torch is not None:
            self.assertTrue(torch.equal(state["w"], torch.arange(1000.0)))
        self.assertEqual(checkpoint.latest_path(), self.step_path(1))

    def test_killed_in_the_middle_of_state_pt(self) -> None:
        process = self.start_saver('{"values": [0], "slow": Slow()}')
        leftover = self.kill_while_writing(process, 0)
        self.assertEqual(process.returncode, -signal.SIGKILL)
        self.assertEqual(os.path.basename(leftover), ".step-2.tmp-{}-{}".format(
            socket.gethostname(), process.pid))
        self.assertFalse(os.path.exists(os.path.join(leftover, "meta.json")))
        self.assertFalse(os.path.exists(self.step_path(2)))
        self.assert_step_1_is_what_we_resume_from()
        # The next save on this host removes what the dead process left, and succeeds.
        self.save({"values": [2]}, 2)
        self.assertEqual(self.entries(), ["latest", "step-1", "step-2"])
        self.assertEqual(checkpoint.load_latest(), (2, {"values": [2]}))

    @needs_torch
    def test_killed_while_writing_a_large_state(self) -> None:
        process = self.start_saver('{"values": [0], "w": torch.ones(64 << 20)}')  # 256 MiB
        self.kill_while_writing(process, 1 << 20)
        self.assertEqual(process.returncode, -signal.SIGKILL)
        if os.path.exists(self.step_path(2)):  # the machine outran the kill: still whole
            self.skipTest("step 2 was written before the kill landed")
        self.assert_step_1_is_what_we_resume_from()

    def test_a_live_process_leftover_is_kept(self) -> None:
        host = socket.gethostname()
        dead = subprocess.Popen([sys.executable, "-c", "pass"])
        dead.wait()
        alive_name = ".step-5.tmp-{}-{}".format(host, os.getppid())
        dead_name = ".step-6.tmp-{}-{}".format(host, dead.pid)
        other_host = ".step-7.tmp-{}-{}".format(host + "-other", dead.pid)
        for name in (alive_name, dead_name, other_host):
            os.makedirs(os.path.join(self.checkpoints, name))
        self.save({"a": 1}, 1)
        self.assertEqual(self.entries(), sorted([alive_name, other_host, "latest", "step-1"]))


def _one_line(text: str) -> str:
    return text.replace("\n", " ").replace("\r", " ")


def _raise_enospc(state, path):
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), path)


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return -1


def _kill_quietly(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.kill()
        process.wait(60)


def child_env(output: str) -> dict:
    env = dict(os.environ, PYTHONPATH=SDK_DIR, PAI_OUTPUT_DIR=output)
    for name in ("PAI_CONTROL_SOCKET", "PAI_LATEST_CHECKPOINT"):
        env.pop(name, None)
    return env


def run_python(output: str, code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=child_env(output),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, timeout=120)


if __name__ == "__main__":
    unittest.main()
