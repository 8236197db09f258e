#!/usr/bin/python3
"""framework xgboost end to end: a spec compiled by pai-compile, two pai-launch nodes on
loopback addresses, Debian's python3-xgboost training across them. pai's preset starts the
Rabit tracker on the first instance and gives each worker DMLC_TRACKER_URI, DMLC_TRACKER_PORT,
DMLC_NUM_WORKER and DMLC_TASK_ID; the workers join it with no arguments of their own, train
on their shards and must end with one model, the same on both.

python3-xgboost is used where it is installed, else from the files scripts/deps.sh unpacks into
$PAI_TEST_DEPS/xgboost (default /opt/pai-test-deps/xgboost: Debian 12 cannot install it beside
libboost1.81-dev). Exit 77 (skipped) without it.

Usage: xgboost_job_test.py --compiler BUILD/compiler/pai-compile
                          --launcher BUILD/launcher/pai-launch
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SUBNET = 71  # 127.71.0.0/24: this test's addresses (tests/launcher/multi_node/cluster_harness.h)


def xgboost_paths():
    """The PYTHONPATH and LD_LIBRARY_PATH under which /usr/bin/python3 imports xgboost, or None."""
    if subprocess.run(["/usr/bin/python3", "-c", "import xgboost"],
                      capture_output=True).returncode == 0:
        return "", ""
    root = os.path.join(os.environ.get("PAI_TEST_DEPS", "/opt/pai-test-deps"), "xgboost")
    python = os.path.join(root, "usr/lib/python3/dist-packages")
    libs = os.path.join(root, "usr/lib/x86_64-linux-gnu")
    env = dict(os.environ, PYTHONPATH=python, LD_LIBRARY_PATH=libs)
    if subprocess.run(["/usr/bin/python3", "-c", "import xgboost"], env=env,
                      capture_output=True).returncode == 0:
        return python, libs
    return None


def spec(train, out, python_path, library_path):
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": python_path, "LD_LIBRARY_PATH": library_path}
    return {
        "apiVersion": "pai/v1", "kind": "Job", "name": "xgboost-test", "framework": "xgboost",
        "hosts": [{"name": "node-%d" % i, "address": "127.%d.0.%d" % (SUBNET, i)}
                  for i in (1, 2)],
        "portRange": {"min": 27100, "max": 27119},
        "roles": {"worker": {"instances": 2, "command": ["/usr/bin/python3", train, out],
                             "env": {k: v for k, v in env.items() if v}}},
        "faultTolerance": {"restart": {"maxRestarts": 0}},
        "sanityCheck": {"enabled": False},
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--compiler", required=True)
    parser.add_argument("--launcher", required=True)
    options = parser.parse_args()
    paths = xgboost_paths()
    if paths is None:
        print("skipped: python3-xgboost is neither installed nor unpacked by scripts/deps.sh")
        return 77
    with tempfile.TemporaryDirectory(prefix="pai-xgboost-") as work:
        out = os.path.join(work, "out")
        os.makedirs(out)
        with open(os.path.join(work, "job.json"), "w") as f:
            json.dump(spec(os.path.join(HERE, "xgboost_train.py"), out, *paths), f)
        compiled = os.path.join(work, "compiled")
        subprocess.run([options.compiler, os.path.join(work, "job.json"), "-o", compiled],
                       check=True, capture_output=True)
        plan = os.path.join(compiled, "plan.json")
        with open(plan) as f:
            argv = json.load(f)["roles"][0]["launchArgv"]
        assert argv[:4] == ["/bin/sh", "-c", argv[2], "pai-xgboost"], argv
        launchers = [subprocess.Popen([options.launcher, "run", "--plan", plan, "--node",
                                       "node-%d" % i, "--rendezvous-timeout", "60s"],
                                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                     for i in (1, 2)]
        failed = False
        for launcher in launchers:
            output, _ = launcher.communicate(timeout=180)
            if launcher.returncode != 0:
                print(output)
                failed = True
        if failed:
            raise AssertionError("a node of the xgboost job failed")
        worlds = []
        for task in (0, 1):
            with open(os.path.join(out, "world-%d.json" % task)) as f:
                worlds.append(json.load(f))
        assert worlds == [{"rank": 0, "world": 2}, {"rank": 1, "world": 2}], worlds
        with open(os.path.join(out, "model-0.json"), "rb") as a, \
                open(os.path.join(out, "model-1.json"), "rb") as b:
            assert a.read() == b.read(), "the workers trained different models"
        print("xgboost: 2 workers on 2 nodes joined pai's tracker and trained one model")
    return 0


if __name__ == "__main__":
    sys.exit(main())
