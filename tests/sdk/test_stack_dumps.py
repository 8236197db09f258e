"""Stack dumps on SIGUSR1, in fresh interpreters: what importing pai.job_monitor does to
the signal."""

import os
import signal
import subprocess
import sys
import unittest

from sdk_path import SDK_DIR


def run_python(code: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=SDK_DIR)
    env.pop("PAI_CONTROL_SOCKET", None)
    return subprocess.run([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True, timeout=60)


class StackDumpsTest(unittest.TestCase):
    def test_importing_dumps_stacks_on_sigusr1_and_carries_on(self) -> None:
        result = run_python(
            "import os, signal\n"
            "from pai import job_monitor\n"
            "os.kill(os.getpid(), signal.SIGUSR1)\n"
            "print('still running')\n")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertRegex(result.stderr, r"(Current thread|Thread) 0x[0-9a-f]+")
        self.assertIn('File "<string>", line 3', result.stderr)
        self.assertEqual(result.stdout, "still running\n")

    def test_importing_aimaster_does_too(self) -> None:
        result = run_python(
            "import os, signal\n"
            "from aimaster import job_monitor\n"
            "os.kill(os.getpid(), signal.SIGUSR1)\n")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("Current thread", result.stderr)

    def test_a_program_handler_is_left_alone(self) -> None:
        result = run_python(
            "import os, signal\n"
            "signal.signal(signal.SIGUSR1, lambda *a: print('mine'))\n"
            "from pai import job_monitor\n"
            "print(job_monitor.enable_stack_dumps())\n"
            "os.kill(os.getpid(), signal.SIGUSR1)\n")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout, "False\nmine\n")
        self.assertNotIn("Current thread", result.stderr)

    def test_importing_in_another_thread_registers_nothing(self) -> None:
        result = run_python(
            "import os, signal, threading\n"
            "thread = threading.Thread(target=lambda: __import__('pai.job_monitor'))\n"
            "thread.start(); thread.join()\n"
            "os.kill(os.getpid(), signal.SIGUSR1)\n")
        self.assertEqual(result.returncode, -signal.SIGUSR1, result.stderr)

    def test_enable_stack_dumps_explicitly(self) -> None:
        result = run_python(
            "import os, signal, threading\n"
            "thread = threading.Thread(target=lambda: __import__('pai.job_monitor'))\n"
            "thread.start(); thread.join()\n"
            "from pai import job_monitor\n"
            "print(job_monitor.enable_stack_dumps(), job_monitor.enable_stack_dumps())\n"
            "os.kill(os.getpid(), signal.SIGUSR1)\n")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout, "True True\n")
        self.assertEqual(result.stderr.count("Current thread"), 1)


if __name__ == "__main__":
    unittest.main()
