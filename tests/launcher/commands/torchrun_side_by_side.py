#!/usr/bin/python3
"""pai-launch torchrun side by side with Debian's torchrun (python3-torch 1.13).

The same gloo DDP script (torchrun_ddp_job.py) runs under torchrun (`/usr/bin/python3 -m
torch.distributed.run`) and under pai-launch torchrun, called through a link named torchrun,
with identical arguments:
  --nodes 1: one node of 2 ranks, the last rank SIGKILLed once; then a rank that raises under
             @record with no restart allowed;
  --nodes 2: two launchers on this machine (the rendezvous endpoint on 127.0.0.1, no
             --node-rank: the second one learns its rank from the first), 2 ranks each, the
             last rank SIGKILLed once.
Both must finish (exit 0; exit 1 for the raise), and every rank of every attempt must have
seen the same environment, except:
  * pai's own variables: PAI_*, and TORCH_NCCL_ASYNC_ERROR_HANDLING (torch >= 2.2's name of
    NCCL_ASYNC_ERROR_HANDLING, which torch 1.13's torchrun does not set);
  * the values each launcher picks at run time: MASTER_ADDR (torchrun: the rank-0 node's host
    name; pai: the endpoint's address), MASTER_PORT (torchrun: a free port; pai: the
    endpoint's port + 1) and TORCHELASTIC_ERROR_FILE's path (each launcher's log folder).
Exit 77 (skipped) without python3-torch.

Usage: torchrun_side_by_side.py --launcher BUILD/launcher/pai-launch --nodes 1|2
"""

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
JOB = os.path.join(HERE, "torchrun_ddp_job.py")
# Debian's torchrun, as its /usr/bin/torchrun runs it.
TORCHRUN = ["/usr/bin/python3", "-m", "torch.distributed.run"]
PAI_OWN = {"TORCH_NCCL_ASYNC_ERROR_HANDLING"}
RUN_TIME = {"MASTER_ADDR", "MASTER_PORT", "TORCHELASTIC_ERROR_FILE"}


def have_torch():
    return subprocess.run(["/usr/bin/python3", "-c", "import torch.distributed.run"],
                          capture_output=True).returncode == 0


def free_port_pair():
    """A port P with P and P + 1 free on 127.0.0.1 (pai's MASTER_PORT is the endpoint's + 1)."""
    for _ in range(50):
        with socket.socket() as a:
            a.bind(("127.0.0.1", 0))
            port = a.getsockname()[1]
            if port >= 65535:
                continue
            with socket.socket() as b:
                try:
                    b.bind(("127.0.0.1", port + 1))
                except OSError:
                    continue
        return port
    raise RuntimeError("no two consecutive free ports")


def run_job(torchrun, args, nodes, env, timeout=180):
    """Starts `nodes` launchers of `TORCHRUN ARGS` at once; their exit codes and stderr."""
    procs = [subprocess.Popen(torchrun + args, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(nodes)]
    results = []
    for p in procs:
        try:
            out, err = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            for q in procs:
                q.kill()
            raise
        results.append((p.returncode, out + err))
    return results


def envs(out):
    """(attempt, rank) -> the environment that rank saw."""
    seen = {}
    for attempt in sorted(os.listdir(out)):
        if not attempt.startswith("attempt-"):
            continue
        for name in os.listdir(os.path.join(out, attempt)):
            if name.startswith("rank-"):
                with open(os.path.join(out, attempt, name)) as f:
                    seen[(int(attempt[8:]), int(name[5:-5]))] = json.load(f)
    return seen


# What torchrun 1.13's agent gives its workers (LocalElasticAgent, SubprocessContext): the
# comparison must see them, or it compares nothing.
TORCHRUN_VARIABLES = {"RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "GROUP_RANK",
                      "GROUP_WORLD_SIZE", "ROLE_NAME", "ROLE_RANK", "ROLE_WORLD_SIZE",
                      "MASTER_ADDR", "MASTER_PORT", "TORCHELASTIC_RESTART_COUNT",
                      "TORCHELASTIC_MAX_RESTARTS", "TORCHELASTIC_RUN_ID",
                      "TORCHELASTIC_USE_AGENT_STORE", "TORCHELASTIC_ERROR_FILE",
                      "NCCL_ASYNC_ERROR_HANDLING", "OMP_NUM_THREADS"}


def compare(reference, pai):
    """Differences between torchrun's and pai's environments, one line each."""
    problems = []
    if not reference:
        problems.append("no rank wrote its environment under torchrun")
    for key, env in reference.items():
        missing = TORCHRUN_VARIABLES - set(env)
        if missing:
            problems.append("attempt %d rank %d: torchrun gave no %s" %
                            (key + (", ".join(sorted(missing)),)))
    if sorted(reference) != sorted(pai):
        problems.append("attempts and ranks differ: torchrun %s, pai %s" %
                        (sorted(reference), sorted(pai)))
    for key in sorted(set(reference) & set(pai)):
        theirs, ours = reference[key], pai[key]
        where = "attempt %d rank %d" % key
        for name in sorted(set(theirs) - set(ours)):
            problems.append("%s: pai lacks %s=%s" % (where, name, theirs[name]))
        for name in sorted(set(ours) - set(theirs)):
            if not name.startswith("PAI_") and name not in PAI_OWN:
                problems.append("%s: pai adds %s=%s" % (where, name, ours[name]))
        for name in sorted(set(theirs) & set(ours)):
            if name in RUN_TIME:
                if not ours[name]:
                    problems.append("%s: pai's %s is empty" % (where, name))
            elif theirs[name] != ours[name]:
                problems.append("%s: %s is %r under torchrun, %r under pai" %
                                (where, name, theirs[name], ours[name]))
    return problems


def side_by_side(launcher, nodes, scenario, restarts, expected_code, work):
    link_dir = os.path.join(work, "bin")
    os.makedirs(link_dir, exist_ok=True)
    link = os.path.join(link_dir, "torchrun")
    if not os.path.exists(link):
        os.symlink(launcher, link)
    runs = {}
    for tool, torchrun in (("torchrun", TORCHRUN), ("pai", [link])):
        out = os.path.join(work, scenario, tool)
        os.makedirs(out)
        port = free_port_pair()
        env = dict(os.environ, GLOO_SOCKET_IFNAME="lo", PYTHONDONTWRITEBYTECODE="1",
                   PAI_JOB_TOKEN="side-by-side-token-0123456789")
        env.pop("OMP_NUM_THREADS", None)
        # torch 1.13 under Python 3.11 needs its output redirected (its default crashes).
        args = ["--nnodes", str(nodes), "--nproc_per_node", "2", "--rdzv_backend", "c10d",
                "--rdzv_endpoint", "127.0.0.1:%d" % port,
                # Unique per test: one job's node on a machine has one launcher at a time.
                "--rdzv_id", "sbs%d-%s" % (nodes, scenario),
                "--max_restarts", str(restarts), "--redirects", "1", "--tee", "1",
                "--log_dir", os.path.join(work, scenario, tool + "-logs"), JOB, out, scenario]
        results = run_job(torchrun, args, nodes, env)
        for code, output in results:
            if code != expected_code:
                print(output)
                raise AssertionError("%s %s: exit code %d, expected %d" %
                                     (tool, scenario, code, expected_code))
        runs[tool] = (out, results)
    problems = compare(envs(runs["torchrun"][0]), envs(runs["pai"][0]))
    for p in problems:
        print("  " + p)
    if problems:
        raise AssertionError("%s: the ranks' environments differ" % scenario)
    print("%s, %d node(s): same exit code %d, same environment in %d rank-attempts" %
          (scenario, nodes, expected_code, len(envs(runs["pai"][0]))))
    return runs


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--launcher", required=True)
    parser.add_argument("--nodes", type=int, choices=(1, 2), required=True)
    options = parser.parse_args()
    if not have_torch():
        print("skipped: python3-torch (torchrun) is not installed")
        return 77
    with tempfile.TemporaryDirectory(prefix="pai-torchrun-") as work:
        runs = side_by_side(os.path.abspath(options.launcher), options.nodes, "kill-once", 1, 0,
                            work)
        # Attempt 1 exists: the killed rank was restarted, once, by both.
        for tool, (out, _) in runs.items():
            assert sorted({a for a, _ in envs(out)}) == [0, 1], tool
        if options.nodes == 1:
            runs = side_by_side(os.path.abspath(options.launcher), 1, "raise", 0, 1, work)
            pai_output = "".join(output for _, output in runs["pai"][1])
            for needed in ("error: ValueError: bad batch on rank 1",
                           "traceback from its error file:"):
                if needed not in pai_output:
                    print(pai_output)
                    raise AssertionError("pai's summary lacks %r" % needed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
