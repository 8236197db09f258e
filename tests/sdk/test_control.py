"""pai._control: request lines and the connection to the control socket."""

import os
import shutil
import tempfile
import threading
import time
import unittest

import sdk_path  # noqa: F401 - before pai
from fake_launcher import FakeLauncher
from pai import _control


class RequestLineTest(unittest.TestCase):
    def test_line_breaks_become_spaces(self) -> None:
        self.assertEqual(_control.request_line("notify", "a\nb\r\nc\r"), "notify a b  c ")

    def test_cut_to_the_limit_on_a_character_boundary(self) -> None:
        line = _control.request_line("notify", "€" * 2000)  # 3 bytes each
        encoded = line.encode("utf-8")
        self.assertEqual(len(encoded), 4096 - (4096 - 7) % 3)
        self.assertTrue(line.endswith("€"))

    def test_lone_surrogates_are_replaced(self) -> None:
        self.assertEqual(_control.request_line("notify", "a\udcffb"), "notify a?b")


class ControlConnectionTest(unittest.TestCase):
    def setUp(self) -> None:
        directory = tempfile.mkdtemp(prefix="pai-sdk-test-")
        self.addCleanup(shutil.rmtree, directory)
        self.launcher = FakeLauncher(directory)
        self.addCleanup(self.launcher.close)
        self.connection = _control.ControlConnection(self.launcher.path, timeout_s=0.5)
        self.addCleanup(self.connection.close)

    def test_one_connection_for_many_requests(self) -> None:
        for step in range(3):
            self.assertIsNone(self.connection.request("progress {}".format(step)))
        self.assertEqual(self.launcher.lines, ["progress 0", "progress 1", "progress 2"])
        self.assertEqual(self.launcher.connections, 1)

    def test_a_kept_connection_found_closed_is_replaced_once(self) -> None:
        self.launcher.drop_after_reply = True
        self.assertIsNone(self.connection.request("progress 1"))
        self.assertIsNone(self.connection.request("progress 2"))
        self.assertEqual(self.launcher.lines, ["progress 1", "progress 2"])
        self.assertEqual(self.launcher.connections, 2)

    def test_a_new_connection_is_not_retried(self) -> None:
        self.launcher.close()
        problem = self.connection.request("progress 1")
        self.assertTrue(problem.startswith(
            "cannot connect to the launcher's control socket " + self.launcher.path), problem)

    def test_an_error_reply(self) -> None:
        self.launcher.reply = lambda line: "error progress needs a step"
        self.assertEqual(self.connection.request("progress x"),
                         "the launcher refused 'progress': progress needs a step")

    def test_ask_returns_what_follows_ok(self) -> None:
        self.launcher.reply = lambda line: "ok interval=60 request=2" if line == "q" else "ok"
        self.assertEqual(self.connection.ask("q"), ("interval=60 request=2", None))
        self.assertEqual(self.connection.ask("progress 1"), ("", None))
        # request() takes an answer as an ok.
        self.assertIsNone(self.connection.request("q"))
        self.launcher.reply = lambda line: "error no"
        self.assertEqual(self.connection.ask("q"), (None, "the launcher refused 'q': no"))
        self.launcher.reply = lambda line: "okay"
        answer, problem = self.connection.ask("q")
        self.assertIsNone(answer)
        self.assertTrue(problem.startswith("unexpected reply"), problem)

    def test_an_unexpected_reply_starts_afresh(self) -> None:
        self.launcher.reply = lambda line: "hello"
        self.assertEqual(self.connection.request("progress 1"),
                         "unexpected reply from the launcher's control socket {}: 'hello'"
                         .format(self.launcher.path))
        self.launcher.reply = lambda line: "ok"
        self.assertIsNone(self.connection.request("progress 2"))
        self.assertEqual(self.launcher.connections, 2)

    def test_no_reply_within_the_timeout(self) -> None:
        self.launcher.silent = True
        started = time.monotonic()
        problem = self.connection.request("progress 1")
        self.assertLess(time.monotonic() - started, 1.0)
        self.assertEqual(problem, "no reply from the launcher's control socket {} within 0.5 s; "
                         "requests are skipped for the next 30 s".format(self.launcher.path))

    def test_after_a_timeout_requests_are_skipped_for_a_doubling_quiet_period(self) -> None:
        connection = _control.ControlConnection(self.launcher.path, timeout_s=0.2,
                                                quiet_s=0.3, quiet_max_s=0.5)
        self.addCleanup(connection.close)
        self.launcher.silent = True
        self.assertTrue(connection.request("progress 1").endswith(
            "within 0.2 s; requests are skipped for the next 0.3 s"))
        started = time.monotonic()
        for step in (2, 3):
            problem = connection.request("progress {}".format(step))
            self.assertTrue(problem.startswith(
                "no reply from the launcher's control socket {} (a request timed out): "
                "skipped".format(self.launcher.path)), problem)
        self.assertLess(time.monotonic() - started, 0.1)
        time.sleep(0.35)  # the period is over: the next request tries, times out again
        self.assertTrue(connection.request("progress 4").endswith("for the next 0.5 s"))
        time.sleep(0.55)
        self.assertTrue(connection.request("progress 5").endswith("for the next 0.5 s"))  # capped
        self.assertEqual(self.launcher.lines, ["progress 1", "progress 4", "progress 5"])
        time.sleep(0.55)
        self.launcher.silent = False  # answers again: the quiet period is forgotten
        self.assertIsNone(connection.request("progress 6"))
        self.launcher.silent = True
        self.assertTrue(connection.request("progress 7").endswith("for the next 0.3 s"))

    def test_waiting_for_another_thread_counts_against_the_timeout(self) -> None:
        self.launcher.silent = True
        other = threading.Thread(target=self.connection.request, args=("progress 1",))
        other.start()
        time.sleep(0.2)
        started = time.monotonic()
        problem = self.connection.request("progress 2")
        self.assertLess(time.monotonic() - started, 0.8)
        self.assertTrue(problem.startswith("no reply"), problem)
        other.join()

    @unittest.skipUnless(hasattr(os, "fork"), "needs os.fork")
    def test_a_forked_child_opens_its_own_connection(self) -> None:
        self.assertIsNone(self.connection.request("progress 1"))
        pid = os.fork()
        if pid == 0:
            os._exit(0 if self.connection.request("notify child") is None else 1)
        _, status = os.waitpid(pid, 0)
        self.assertEqual(status, 0)
        self.assertIsNone(self.connection.request("progress 2"))
        self.assertEqual(self.launcher.lines, ["progress 1", "notify child", "progress 2"])
        self.assertEqual(self.launcher.connections, 2)


if __name__ == "__main__":
    unittest.main()
