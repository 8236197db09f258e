"""aimaster.job_monitor: AIMaster code runs unchanged against pai-launch."""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from sdk_path import SDK_DIR
from fake_launcher import FakeLauncher
import pai.job_monitor
from aimaster import job_monitor as jm

# The example of the SDK's README, as written for PAI-DLC.
AIMASTER_CODE = """
from aimaster import job_monitor as jm

monitor = jm.Monitor(config=jm.PyTorchConfig())
st = monitor.send_custom_message(content="loss is NaN")
print(st.ok(), st.to_string())
monitor.set_retryable_errors(["connect timeout", "NCCL error"])
monitor.reset_config(job_hang_interval=10)
monitor.reset_config(job_exit_hang_interval=60)

@jm.hang_detect(180)
def evaluate():
    pass

evaluate()
with jm.hang_detect(-1):
    pass
monitor.report_step(100)
"""


class AimasterTest(unittest.TestCase):
    def test_the_same_api(self) -> None:
        self.assertEqual(jm.__all__, pai.job_monitor.__all__)
        for name in jm.__all__:
            self.assertIs(getattr(jm, name), getattr(pai.job_monitor, name), name)

    def test_aimaster_code_runs_unchanged(self) -> None:
        directory = tempfile.mkdtemp(prefix="pai-sdk-test-")
        self.addCleanup(shutil.rmtree, directory)
        launcher = FakeLauncher(directory)
        self.addCleanup(launcher.close)
        env = dict(os.environ, PYTHONPATH=SDK_DIR, PAI_CONTROL_SOCKET=launcher.path)
        result = subprocess.run([sys.executable, "-W", "error", "-c", AIMASTER_CODE], env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                universal_newlines=True, timeout=60)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout, "True OK\n")
        self.assertEqual(launcher.lines, [
            "notify loss is NaN",
            "retryable-error connect timeout",
            "retryable-error NCCL error",
            "hang-interval 10",
            "exit-hang-interval 60",
            "hang-interval 180",
            "hang-interval 10",
            "hang-interval off",
            "hang-interval 10",
            "progress 100",
        ])


if __name__ == "__main__":
    unittest.main()
