"""sdk/python installs with pip, offline, and imports from where it was installed."""

import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from sdk_path import SDK_DIR


# What `pip install --no-build-isolation` needs from the interpreter, which pip does not
# check: pip, and a setuptools that reads pyproject.toml's [project] and builds wheels.
BUILD_TOOLS_PROBE = """
import setuptools, pip
assert int(setuptools.__version__.split(".")[0]) >= 61
try:
    import wheel
except ImportError:
    from setuptools.command import bdist_wheel
"""


def run(command, cwd: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "PIP_"))}
    return subprocess.run(command, cwd=cwd, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, universal_newlines=True, timeout=300)


@unittest.skipUnless(importlib.util.find_spec("venv") and importlib.util.find_spec("pip"),
                     "needs the venv and pip modules")
class InstallTest(unittest.TestCase):
    def test_pip_install_into_a_venv(self) -> None:
        directory = tempfile.mkdtemp(prefix="pai-sdk-install-")
        self.addCleanup(shutil.rmtree, directory)
        # A copy: an in-tree build would leave build/ and *.egg-info in the checkout.
        source = os.path.join(directory, "source")
        shutil.copytree(SDK_DIR, source, ignore=shutil.ignore_patterns(
            "__pycache__", "build", "*.egg-info"))
        venv = os.path.join(directory, "venv")
        python = os.path.join(venv, "bin", "python")
        # The interpreter's own build tools, through --system-site-packages: offline.
        result = run([sys.executable, "-m", "venv", "--without-pip", "--system-site-packages",
                      venv], directory)
        self.assertEqual(result.returncode, 0, result.stdout)
        if run([python, "-c", BUILD_TOOLS_PROBE], directory).returncode != 0:
            self.skipTest("no pip, setuptools >= 61 and wheel visible from a venv")
        result = run([python, "-m", "pip", "install", "--no-build-isolation", "--no-index",
                      "--disable-pip-version-check", source], directory)
        self.assertEqual(result.returncode, 0, result.stdout)
        result = run([python, "-c",
                      "import pai.job_monitor, aimaster.job_monitor\n"
                      "print(pai.job_monitor.__file__)\n"
                      "print(aimaster.job_monitor.Monitor is pai.job_monitor.Monitor)\n"],
                     directory)
        self.assertEqual(result.returncode, 0, result.stdout)
        installed, same = result.stdout.splitlines()[-2:]
        self.assertTrue(installed.startswith(os.path.join(venv, "lib")), installed)
        self.assertEqual(same, "True")


if __name__ == "__main__":
    unittest.main()
