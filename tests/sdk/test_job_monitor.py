"""pai.job_monitor against a fake launcher: what each call sends, and failures; and
Monitor.instrument against a ring file (with torch.distributed when it is installed)."""

import asyncio
import os
import shutil
import tempfile
import threading
import time
import unittest
import warnings

import sdk_path  # noqa: F401 - before pai
from fake_launcher import FakeLauncher
from pai import job_monitor as jm
from pai import telemetry
from telemetry_fixtures import HAVE_TORCH, GlooGroup, HiddenTorch, records_of, reset_ring, ring_in

if HAVE_TORCH:
    import torch
    import torch.distributed as dist


def forget_session() -> None:
    """Makes the next call start a new session from PAI_CONTROL_SOCKET."""
    session = jm._current_session
    if session is not None and session._connection is not None:
        session._connection.close()
    jm._current_session = None


class LauncherTestCase(unittest.TestCase):
    """Each test talks to its own fake launcher through a new session."""

    def setUp(self) -> None:
        self.directory = tempfile.mkdtemp(prefix="pai-sdk-test-")
        self.addCleanup(shutil.rmtree, self.directory)
        self.launcher = FakeLauncher(self.directory)
        self.addCleanup(self.launcher.close)
        saved = os.environ.get("PAI_CONTROL_SOCKET")
        os.environ["PAI_CONTROL_SOCKET"] = self.launcher.path
        self.addCleanup(restore_environment, "PAI_CONTROL_SOCKET", saved)
        forget_session()
        self.addCleanup(forget_session)
        self.warnings = warnings.catch_warnings(record=True)
        self.caught = self.warnings.__enter__()
        warnings.simplefilter("always")
        self.addCleanup(self.warnings.__exit__, None, None, None)

    def monitor_warnings(self):
        return [w for w in self.caught if issubclass(w.category, jm.MonitorWarning)]


def restore_environment(name: str, value) -> None:
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = value


class RequestsTest(LauncherTestCase):
    def test_send_custom_message_sends_notify(self) -> None:
        status = jm.Monitor().send_custom_message(content="loss is NaN")
        self.assertEqual(self.launcher.lines, ["notify loss is NaN"])
        self.assertTrue(status.ok())
        self.assertTrue(status)
        self.assertEqual(status.to_string(), "OK")

    def test_report_step_sends_progress(self) -> None:
        monitor = jm.Monitor()
        self.assertTrue(monitor.report_step(0).ok())
        self.assertTrue(monitor.report_step(1200).ok())
        self.assertEqual(self.launcher.lines, ["progress 0", "progress 1200"])

    def test_a_bad_step_sends_nothing(self) -> None:
        for step in (-1, "12", 1.5, None):
            status = jm.report_step(step)
            self.assertFalse(status.ok(), step)
            self.assertEqual(status.to_string(), "report_step needs an integer step >= 0")
        self.assertEqual(self.launcher.lines, [])
        self.assertEqual(len(self.monitor_warnings()), 1)

    def test_set_retryable_errors_sends_one_request_each(self) -> None:
        status = jm.Monitor().set_retryable_errors(["connect timeout", "NCCL error"])
        self.assertTrue(status.ok())
        self.assertEqual(self.launcher.lines,
                         ["retryable-error connect timeout", "retryable-error NCCL error"])

    def test_a_single_retryable_error_string_is_one_keyword(self) -> None:
        jm.set_retryable_errors("NCCL error")
        self.assertEqual(self.launcher.lines, ["retryable-error NCCL error"])

    def test_a_bad_retryable_error_is_refused_and_the_others_sent(self) -> None:
        status = jm.set_retryable_errors(["two\nlines", "", "ECC error", "x" * 5000])
        self.assertFalse(status.ok())
        self.assertEqual(status.to_string(),
                         "a retryable error must be one non-empty line of text, "
                         "got 'two\\nlines'")
        self.assertEqual(self.launcher.lines, ["retryable-error ECC error"])
        self.assertFalse(jm.set_retryable_errors(None).ok())

    def test_reset_config_sends_the_intervals(self) -> None:
        monitor = jm.Monitor()
        self.assertTrue(monitor.reset_config(job_hang_interval=10).ok())
        self.assertTrue(monitor.reset_config(job_exit_hang_interval=600).ok())
        self.assertTrue(monitor.reset_config(job_hang_interval=90.5,
                                             job_exit_hang_interval=30).ok())
        self.assertTrue(monitor.reset_config().ok())
        self.assertEqual(self.launcher.lines, [
            "hang-interval 10", "exit-hang-interval 600",
            "hang-interval 91", "exit-hang-interval 30"])

    def test_minus_one_or_zero_turns_hang_detection_off(self) -> None:
        jm.reset_config(job_hang_interval=-1)
        jm.reset_config(job_hang_interval=0)
        self.assertEqual(self.launcher.lines, ["hang-interval off", "hang-interval off"])

    def test_the_exit_hang_interval_has_no_off(self) -> None:
        status = jm.reset_config(job_exit_hang_interval=-1)
        self.assertFalse(status.ok())
        self.assertEqual(status.to_string(),
                         "job_exit_hang_interval must be whole seconds >= 1 "
                         "(there is no 'off' for it), got -1")
        self.assertEqual(self.launcher.lines, [])

    def test_a_monitor_applies_its_config(self) -> None:
        config = jm.PyTorchConfig(job_hang_interval=600, job_exit_hang_interval=60,
                                  log_dir="/tmp/x")
        monitor = jm.Monitor(config=config)
        self.assertIs(monitor.config, config)
        self.assertEqual(config.settings["log_dir"], "/tmp/x")
        self.assertEqual(self.launcher.lines, ["hang-interval 600", "exit-hang-interval 60"])
        jm.Monitor(config=jm.TFConfig(job_hang_interval=-1))
        jm.Monitor(config=jm.PyTorchConfig())
        self.assertEqual(self.launcher.lines[2:], ["hang-interval off"])

    def test_status_repr(self) -> None:
        self.launcher.reply = lambda line: "error no"
        self.assertEqual(repr(jm.report_step(1)),
                         "Status(ok=False, message=\"the launcher refused 'progress': no\")")


class HangDetectTest(LauncherTestCase):
    def test_decorator_sets_then_restores(self) -> None:
        @jm.hang_detect(180)
        def evaluate(x):
            """Doc."""
            self.assertEqual(self.launcher.lines, ["hang-interval 180"])
            return x + 1

        self.assertEqual(evaluate(1), 2)
        self.assertEqual(evaluate.__name__, "evaluate")
        self.assertEqual(evaluate.__doc__, "Doc.")
        self.assertEqual(self.launcher.lines, ["hang-interval 180", "hang-interval default"])

    def test_context_minus_one_is_off(self) -> None:
        with jm.hang_detect(-1):
            pass
        self.assertEqual(self.launcher.lines, ["hang-interval off", "hang-interval default"])

    def test_nested_scopes_restore_in_order(self) -> None:
        with jm.hang_detect(180):
            with jm.hang_detect(-1):
                pass
        self.assertEqual(self.launcher.lines, [
            "hang-interval 180", "hang-interval off", "hang-interval 180",
            "hang-interval default"])

    def test_one_object_entered_twice(self) -> None:
        scope = jm.hang_detect(5)
        with scope:
            with scope:
                pass
        self.assertEqual(self.launcher.lines, [
            "hang-interval 5", "hang-interval 5", "hang-interval 5", "hang-interval default"])

    def test_restores_after_an_exception(self) -> None:
        @jm.hang_detect(30)
        def fail():
            raise KeyError("boom")

        with self.assertRaises(ValueError):
            with jm.hang_detect(60):
                with self.assertRaises(KeyError):
                    fail()
                raise ValueError("out")
        self.assertEqual(self.launcher.lines, [
            "hang-interval 60", "hang-interval 30", "hang-interval 60",
            "hang-interval default"])

    def test_restores_what_reset_config_set(self) -> None:
        jm.Monitor().reset_config(job_hang_interval=600)
        with jm.Monitor().hang_detect(60):
            pass
        self.assertEqual(self.launcher.lines, [
            "hang-interval 600", "hang-interval 60", "hang-interval 600"])

    def test_reset_config_within_a_scope_is_restored_by_the_outermost(self) -> None:
        with jm.hang_detect(60):
            jm.reset_config(job_hang_interval=-1)
        self.assertEqual(self.launcher.lines, [
            "hang-interval 60", "hang-interval off", "hang-interval off"])

    def test_an_interval_the_launcher_refused_is_not_restored(self) -> None:
        self.launcher.reply = lambda line: "error too long" if line.endswith("99999999") \
            else "ok"
        self.assertFalse(jm.reset_config(job_hang_interval=99999999).ok())
        with jm.hang_detect(60):
            pass
        self.assertEqual(self.launcher.lines[1:], ["hang-interval 60", "hang-interval default"])

    def test_async_function(self) -> None:
        @jm.hang_detect(30)
        async def step():
            await asyncio.sleep(0)
            return list(self.launcher.lines)

        self.assertEqual(asyncio.run(step()), ["hang-interval 30"])
        self.assertEqual(self.launcher.lines, ["hang-interval 30", "hang-interval default"])

    def test_threads_restore_by_the_most_recent_open_scope(self) -> None:
        first_in, second_in, first_out = threading.Event(), threading.Event(), threading.Event()

        def first():
            with jm.hang_detect(100):
                first_in.set()
                second_in.wait(5)
            first_out.set()

        def second():
            first_in.wait(5)
            with jm.hang_detect(200):
                second_in.set()
                first_out.wait(5)
                self.assertEqual(self.launcher.lines, ["hang-interval 100", "hang-interval 200"])

        threads = [threading.Thread(target=first), threading.Thread(target=second)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(10)
        self.assertEqual(self.launcher.lines, [
            "hang-interval 100", "hang-interval 200", "hang-interval default"])

    def test_many_threads_end_at_the_base(self) -> None:
        jm.reset_config(job_hang_interval=900)

        def work(seconds):
            for _ in range(20):
                with jm.hang_detect(seconds):
                    with jm.hang_detect(-1):
                        pass

        threads = [threading.Thread(target=work, args=(s,)) for s in (10, 20, 30, 40)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        self.assertEqual(self.launcher.lines[-1], "hang-interval 900")
        self.assertEqual(jm._current_session._scopes.current(), "900")

    def test_bad_seconds_make_a_scope_that_sends_nothing(self) -> None:
        with jm.hang_detect("3m"):
            pass
        self.assertEqual(self.launcher.lines, [])
        self.assertEqual([str(w.message) for w in self.monitor_warnings()],
                         ["pai job monitor: hang_detect's seconds must be whole seconds, "
                          "got '3m'"])


class FailureTest(LauncherTestCase):
    def test_an_error_reply_is_a_failed_status(self) -> None:
        self.launcher.reply = lambda line: "error x happened"
        for _ in range(3):
            status = jm.send_custom_message("hello")
            self.assertFalse(status.ok())
            self.assertFalse(status)
            self.assertIn("x happened", status.to_string())
        self.assertEqual(len(self.monitor_warnings()), 1)
        self.assertEqual(len(self.launcher.lines), 3)

    def test_the_launcher_gone_mid_job(self) -> None:
        self.assertTrue(jm.report_step(1).ok())
        self.launcher.close()
        started = time.monotonic()
        status = jm.report_step(2)
        self.assertLess(time.monotonic() - started, 2.5)
        self.assertFalse(status.ok())
        self.assertIn(self.launcher.path, status.to_string())
        with jm.hang_detect(10):
            pass
        self.assertEqual(len(self.monitor_warnings()), 1)

    def test_a_launcher_that_never_answers(self) -> None:
        self.launcher.silent = True
        started = time.monotonic()
        status = jm.send_custom_message("hello")
        elapsed = time.monotonic() - started
        self.assertFalse(status.ok())
        self.assertIn("no reply", status.to_string())
        self.assertGreater(elapsed, 1.5)
        self.assertLess(elapsed, 3.0)
        self.assertIn("requests are skipped for the next 30 s", status.to_string())
        # Within the quiet period that follows, a request is answered at once: a wedged
        # launcher does not stall every training step for 2 s.
        started = time.monotonic()
        skipped = jm.report_step(6)
        self.assertLess(time.monotonic() - started, 0.5)
        self.assertFalse(skipped.ok())
        self.assertIn("skipped", skipped.to_string())
        self.assertNotIn("progress 6", self.launcher.lines)
        # Once it is over, the late reply is not taken for the next request's.
        jm._session()._connection._quiet_until = 0.0
        self.launcher.silent = False
        self.launcher.reply = lambda line: "ok" if line == "progress 7" else "error wrong"
        self.assertTrue(jm.report_step(7).ok())

    def test_a_long_message_is_cut_on_a_character_boundary(self) -> None:
        jm.send_custom_message("a\r\nb" + "é" * 5000)
        line = self.launcher.raw_lines[0]
        self.assertEqual(len(line), 4095)  # 4096 would split the last "é"
        self.assertTrue(line.decode("utf-8").startswith("notify a  bé"))
        self.assertEqual(len(self.launcher.raw_lines), 1)

    def test_a_message_at_the_limit_is_whole(self) -> None:
        jm.send_custom_message("x" * (4096 - len("notify ")))
        self.assertEqual(len(self.launcher.raw_lines[0]), 4096)


class OutsidePaiTest(LauncherTestCase):
    def test_calls_do_nothing_and_warn_once(self) -> None:
        del os.environ["PAI_CONTROL_SOCKET"]
        monitor = jm.Monitor(config=jm.PyTorchConfig(job_hang_interval=10))
        statuses = [
            monitor.send_custom_message(content="loss is NaN"),
            monitor.set_retryable_errors(["connect timeout", "NCCL error"]),
            monitor.reset_config(job_hang_interval=10, job_exit_hang_interval=20),
            monitor.report_step(3),
            jm.report_step(4),
        ]
        with jm.hang_detect(-1):
            pass
        for status in statuses:
            self.assertTrue(status.ok())
            self.assertEqual(status.to_string(), "not running under pai-launch: nothing sent")
        self.assertEqual(self.launcher.lines, [])
        self.assertEqual(len(self.monitor_warnings()), 1)
        self.assertIn("PAI_CONTROL_SOCKET is not set", str(self.monitor_warnings()[0].message))


class InstrumentTestCase(LauncherTestCase):
    """A launcher's socket, and no ring until a test makes one."""

    def setUp(self) -> None:
        super().setUp()
        saved = os.environ.pop("PAI_TELEMETRY_FILE", None)
        self.addCleanup(restore_environment, "PAI_TELEMETRY_FILE", saved)
        reset_ring()
        self.addCleanup(reset_ring)


class InstrumentTest(InstrumentTestCase):
    def test_without_torch_nothing_is_recorded_and_the_status_says_why(self) -> None:
        ring_path = ring_in(self.directory)
        with HiddenTorch():
            status = jm.Monitor().instrument()
        self.assertFalse(status.ok())
        self.assertTrue(status.to_string().startswith("instrument: no torch.distributed ("),
                        status.to_string())
        self.assertEqual(records_of(ring_path), [])
        self.assertEqual(self.launcher.lines, [])
        self.assertEqual([str(w.message) for w in self.monitor_warnings()],
                         ["pai job monitor: " + status.to_string()])

    @unittest.skipUnless(HAVE_TORCH, "torch.distributed is not available")
    def test_before_init_process_group_the_status_says_so(self) -> None:
        self.assertFalse(dist.is_initialized())
        original = dist.all_reduce
        status = jm.Monitor().instrument()
        self.assertEqual(status.to_string(),
                         "instrument: no process group yet: call it after init_process_group")
        self.assertIs(dist.all_reduce, original)

    def test_outside_pai_launch_it_records_nothing_and_is_ok(self) -> None:
        del os.environ["PAI_CONTROL_SOCKET"]
        with HiddenTorch():
            status = jm.Monitor().instrument(model=object())
        self.assertTrue(status.ok())
        self.assertEqual(status.to_string(), "not running under pai-launch: nothing recorded")
        self.assertEqual(len(self.monitor_warnings()), 1)


@unittest.skipUnless(HAVE_TORCH, "torch.distributed is not available")
class InstrumentTorchTest(GlooGroup, InstrumentTestCase):
    """A one-process gloo group; Monitor.instrument replaces torch.distributed's functions
    for the duration of each test only."""

    def setUp(self) -> None:
        super().setUp()
        self.ring_path = ring_in(self.directory, capacity=64, rank=0)
        self.undo_instrument()

    def collectives(self):
        return [(r["kind"], r["op"], r["bytes"]) for r in records_of(self.ring_path)
                if r["kind"] in (telemetry.COLLECTIVE_ENTER, telemetry.COLLECTIVE_EXIT)]

    def test_collectives_are_recorded(self) -> None:
        status = jm.Monitor().instrument()
        self.assertTrue(status.ok())
        self.assertEqual(status.to_string(), "OK")
        dist.all_reduce(torch.ones(4))
        self.assertEqual(self.collectives(), [
            (telemetry.COLLECTIVE_ENTER, telemetry.ALL_REDUCE, 16),
            (telemetry.COLLECTIVE_EXIT, telemetry.ALL_REDUCE, 16)])
        self.assertEqual(self.launcher.lines, [])
        self.assertEqual(self.monitor_warnings(), [])

    def test_a_ddp_model_s_gradient_all_reduce_is_recorded(self) -> None:
        model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(4, 2))
        self.assertTrue(jm.Monitor().instrument(model).ok())
        self.assertTrue(jm.Monitor().instrument(model=model).ok())  # hooked once
        model(torch.randn(3, 4)).sum().backward()
        nbytes = sum(p.numel() * p.element_size() for p in model.parameters())
        self.assertEqual(self.collectives(), [
            (telemetry.COLLECTIVE_ENTER, telemetry.ALL_REDUCE, nbytes),
            (telemetry.COLLECTIVE_EXIT, telemetry.ALL_REDUCE, nbytes)])

    def test_without_a_ring_the_status_names_the_variable(self) -> None:
        del os.environ["PAI_TELEMETRY_FILE"]
        original = dist.all_reduce
        status = jm.Monitor().instrument()
        self.assertFalse(status.ok())
        self.assertEqual(status.to_string(),
                         "instrument: no telemetry ring: PAI_TELEMETRY_FILE is not set")
        self.assertIs(dist.all_reduce, original)



class FakeClock:
    """Stands in for time.monotonic in pai.job_monitor."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def use_fake_clock(test: unittest.TestCase) -> FakeClock:
    """Puts a FakeClock in place of should_checkpoint's clock for `test`, and keeps
    PAI_CHECKPOINT_INTERVAL_SECONDS as it was after it; returns the clock."""
    clock = FakeClock()
    test.addCleanup(setattr, jm, "_clock", jm._clock)
    jm._clock = clock
    saved = os.environ.get(jm.CHECKPOINT_INTERVAL_VARIABLE)
    test.addCleanup(restore_environment, jm.CHECKPOINT_INTERVAL_VARIABLE, saved)
    return clock


class ShouldCheckpointTest(unittest.TestCase):
    """Monitor.should_checkpoint against PAI_CHECKPOINT_INTERVAL_SECONDS and a fake clock."""

    def setUp(self) -> None:
        self.clock = use_fake_clock(self)
        # No launcher: the advice is not asked for.
        saved_socket = os.environ.pop("PAI_CONTROL_SOCKET", None)
        self.addCleanup(restore_environment, "PAI_CONTROL_SOCKET", saved_socket)
        forget_session()
        self.addCleanup(forget_session)

    def monitor(self, interval) -> jm.Monitor:
        if interval is None:
            os.environ.pop(jm.CHECKPOINT_INTERVAL_VARIABLE, None)
        else:
            os.environ[jm.CHECKPOINT_INTERVAL_VARIABLE] = interval
        return jm.Monitor()

    def test_true_once_the_interval_has_passed_since_the_monitor_was_made(self) -> None:
        monitor = self.monitor("600")
        self.assertFalse(monitor.should_checkpoint(1))
        self.clock.now += 599
        self.assertFalse(monitor.should_checkpoint(2))
        self.clock.now += 1
        self.assertTrue(monitor.should_checkpoint(3))
        # Asked again for the same step: the same answer.
        self.assertTrue(monitor.should_checkpoint(3))

    def test_the_interval_restarts_when_the_save_is_over(self) -> None:
        monitor = self.monitor("600")
        self.clock.now += 700
        self.assertTrue(monitor.should_checkpoint(10))
        self.clock.now += 90  # the save
        self.assertFalse(monitor.should_checkpoint(11))
        self.clock.now += 599
        self.assertFalse(monitor.should_checkpoint(12))
        self.clock.now += 1
        self.assertTrue(monitor.should_checkpoint(13))

    def test_false_outside_a_launcher_and_for_values_that_are_no_interval(self) -> None:
        for value in (None, "", "soon", "0", "-5", "nan", "inf"):
            monitor = self.monitor(value)
            self.clock.now += 10 ** 9
            self.assertFalse(monitor.should_checkpoint(1), value)

    def test_a_refined_interval_replaces_the_planned_one(self) -> None:
        monitor = self.monitor("600")
        self.clock.now += 300
        monitor.set_checkpoint_interval(200)
        self.assertTrue(monitor.should_checkpoint(5))
        monitor.set_checkpoint_interval(None)
        self.clock.now += 10 ** 6
        self.assertFalse(monitor.should_checkpoint(6))
        monitor.set_checkpoint_interval(True)
        self.assertFalse(monitor.should_checkpoint(7))

    def test_cheap_enough_to_call_every_step(self) -> None:
        jm._clock = time.monotonic
        monitor = self.monitor("3600")
        start = time.perf_counter()
        for step in range(100000):
            monitor.should_checkpoint(step)
        # 100,000 calls: well under a microsecond's worth of a training step each.
        self.assertLess(time.perf_counter() - start, 2.0)


class CheckpointAdviceTest(LauncherTestCase):
    """should_checkpoint following the launcher's `checkpoint-advice`: a refined interval and
    `pai-launch checkpoint-now` requests."""

    def setUp(self) -> None:
        super().setUp()
        self.clock = use_fake_clock(self)
        os.environ[jm.CHECKPOINT_INTERVAL_VARIABLE] = "600"
        self.advice = "interval=600 request=0"
        self.launcher.reply = lambda line: (
            "ok " + self.advice if line == "checkpoint-advice" else "ok")

    def test_asked_at_the_first_call_then_every_advice_period(self) -> None:
        monitor = jm.Monitor()
        self.assertFalse(monitor.should_checkpoint(1))
        self.clock.now += jm.ADVICE_PERIOD_S - 1
        self.assertFalse(monitor.should_checkpoint(2))
        self.clock.now += 1
        self.assertFalse(monitor.should_checkpoint(3))
        self.assertEqual(self.launcher.lines, ["checkpoint-advice"] * 2)

    def test_a_checkpoint_now_request_is_true_once_at_the_next_step(self) -> None:
        monitor = jm.Monitor()
        self.assertFalse(monitor.should_checkpoint(1))
        self.advice = "interval=600 request=1"
        self.clock.now += jm.ADVICE_PERIOD_S
        self.assertTrue(monitor.should_checkpoint(2))
        self.assertTrue(monitor.should_checkpoint(2))  # the same step: the same answer
        self.clock.now += 1
        self.assertFalse(monitor.should_checkpoint(3))  # the save is over: not again
        self.clock.now += jm.ADVICE_PERIOD_S
        self.assertFalse(monitor.should_checkpoint(4))  # request 1 is done
        # The interval restarted with the requested save.
        self.clock.now += 600 - 2 * jm.ADVICE_PERIOD_S - 1
        self.assertFalse(monitor.should_checkpoint(5))
        self.clock.now += jm.ADVICE_PERIOD_S + 1
        self.assertTrue(monitor.should_checkpoint(6))

    def test_a_request_comes_through_without_any_interval(self) -> None:
        os.environ.pop(jm.CHECKPOINT_INTERVAL_VARIABLE)
        self.advice = "interval=0 request=3"
        self.assertTrue(jm.Monitor().should_checkpoint(7))

    def test_a_refined_interval_replaces_the_planned_one_and_a_set_one_until_it_changes(
            self) -> None:
        monitor = jm.Monitor()
        self.advice = "interval=100 request=0"
        self.assertFalse(monitor.should_checkpoint(1))
        self.clock.now += 100
        self.assertTrue(monitor.should_checkpoint(2))
        # The caller's own interval stands while the advice stays the same ...
        monitor.set_checkpoint_interval(1000)
        self.clock.now += 1
        self.assertFalse(monitor.should_checkpoint(3))
        self.clock.now += 500
        self.assertFalse(monitor.should_checkpoint(4))
        # ... and gives way when the coordinator refines it again.
        self.advice = "interval=300 request=0"
        self.clock.now += jm.ADVICE_PERIOD_S
        self.assertTrue(monitor.should_checkpoint(5))

    def test_garbage_advice_changes_nothing_and_is_warned_about_once(self) -> None:
        monitor = jm.Monitor()
        for answer in ("interval=x request=1", "request=1", "interval=-5 request=2", ""):
            self.advice = answer
            self.clock.now += jm.ADVICE_PERIOD_S
            self.assertFalse(monitor.should_checkpoint(1), answer)
        self.assertEqual(len(self.monitor_warnings()), 4)
        self.advice = "interval=600 request=1"
        self.clock.now += jm.ADVICE_PERIOD_S
        self.assertTrue(monitor.should_checkpoint(2))

    def test_a_launcher_that_refuses_costs_one_warning(self) -> None:
        self.launcher.reply = lambda line: "error unknown request 'checkpoint-advice'"
        monitor = jm.Monitor()
        for step in range(3):
            self.clock.now += jm.ADVICE_PERIOD_S
            self.assertFalse(monitor.should_checkpoint(step))
        self.assertEqual(len(self.monitor_warnings()), 1)


if __name__ == "__main__":
    unittest.main()
