#!/usr/bin/python3
"""The checkpoint interval planner against a discrete-event simulation (issue 34, item 2).

    /usr/bin/python3 bench/checkpoint_interval.py                  # build/compiler/pai-compile
    /usr/bin/python3 bench/checkpoint_interval.py --pai-compile PATH --failures 5000 --seed 7

For each point of a grid of (nodes, nodeMtbf, checkpointCost, restartCost) the script writes a
job spec with faultTolerance.checkpointPlan, runs the real pai-compile on it and reads the
planned interval and expected ETTR from plan.json. Then it simulates that job: each node fails
after an exponential time of mean nodeMtbf (a failed node is replaced, its successor as
fresh); training checkpoints after every `interval` seconds of work, stalling checkpointCost;
a failure loses the work since the last complete checkpoint and costs restartCost, during
which nodes fail too (and the restart begins again). The simulated ETTR is the work kept over
the wall time, over about --failures failures. It is simulated at the planned interval, half
of it and twice it.

Prints one line per point and, at the end, the largest |predicted - simulated| in ETTR points
(target: at most 2) and how often the planned interval did at least as well as half and twice
it (within the simulation's noise). Exit status 1 when the target is missed. Standard library
only.
"""

import argparse
import heapq
import json
import os
import random
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

NODES = [8, 128, 1024, 2048]
NODE_MTBF = ["1d", "7d", "30d", "237d"]
CHECKPOINT_COST = ["10s", "1m", "5m"]
RESTART_COST = ["1m", "10m", "30m"]

UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def seconds(duration: str) -> int:
    return int(duration[:-1]) * UNITS[duration[-1]]


def spec_text(nodes: int, node_mtbf: str, cost: str, restart: str) -> str:
    hosts = "".join("  - {{name: n{0}, address: 10.{1}.{2}.{3}}}\n".format(
        i, i // 65536, i // 256 % 256, i % 256) for i in range(nodes))
    roles = ("roles:\n  worker:\n    instances: {}\n    command: [python3, train.py]\n"
             "faultTolerance:\n  checkpointPlan: {{nodeMtbf: {}, checkpointCost: {}, "
             "restartCost: {}}}\n").format(nodes, node_mtbf, cost, restart)
    return "apiVersion: pai/v1\nkind: Job\nname: ckpt-bench\nhosts:\n" + hosts + roles


def planned(pai_compile: str, work: str, text: str) -> dict:
    """plan.json's faultTolerance.checkpointPlan for the spec `text`, with pai-compile's
    `checkpoint plan:` line as "line" (an IndexError when it printed none)."""
    spec = os.path.join(work, "job.yaml")
    out = os.path.join(work, "out")
    with open(spec, "w") as f:
        f.write(text)
    run = subprocess.run([pai_compile, spec, "-o", out, "--force"], capture_output=True,
                         text=True, check=True)
    with open(os.path.join(out, "plan.json")) as f:
        plan = json.load(f)["faultTolerance"]["checkpointPlan"]
    plan["line"] = [line for line in run.stdout.splitlines()
                    if line.startswith("checkpoint plan:")][0]
    return plan


def simulate(nodes: int, node_mtbf: float, interval: float, cost: float, restart: float,
             failures: int, rng: random.Random) -> float:
    """Simulated ETTR: work kept / wall time until about `failures` failures."""
    horizon = failures * node_mtbf / nodes
    heap = [rng.expovariate(1 / node_mtbf) for _ in range(nodes)]
    heapq.heapify(heap)
    now = work = 0.0
    segment = interval + cost
    while now < horizon:
        if now + segment <= heap[0]:
            # Whole segments until the next failure, at once.
            count = max(1, int((heap[0] - now) // segment))
            now += count * segment
            work += count * interval
            continue
        # A failure in the segment loses its work; the node is replaced, and the restart
        # begins again at each failure during it.
        now = heap[0]
        heapq.heapreplace(heap, now + rng.expovariate(1 / node_mtbf))
        # (Where restarts rarely succeed, e^(R/M) failures each, the horizon ends it.)
        while heap[0] < now + restart and now < horizon:
            now = heap[0]
            heapq.heapreplace(heap, now + rng.expovariate(1 / node_mtbf))
        now += restart
    return work / now


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pai-compile", default=os.path.join(ROOT, "build/compiler/pai-compile"))
    parser.add_argument("--failures", type=int, default=20000,
                        help="failures simulated per point (more: less noise, slower)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    worst = 0.0
    near_best = points = 0
    print("{:>5} {:>5} {:>4} {:>4} {:>8} {:>9} {:>9} {:>6} {:>9} {:>9}".format(
        "nodes", "mtbf", "cost", "rst", "interval", "predicted", "simulated", "diff",
        "at half", "at twice"))
    with tempfile.TemporaryDirectory(prefix="pai-ckpt-bench-") as work:
        for nodes in NODES:
            for mtbf in NODE_MTBF:
                for cost in CHECKPOINT_COST:
                    for restart in RESTART_COST:
                        plan = planned(args.pai_compile, work,
                                       spec_text(nodes, mtbf, cost, restart))
                        tau = plan["intervalSeconds"]
                        figures = [100 * simulate(nodes, seconds(mtbf), t, seconds(cost),
                                                  seconds(restart), args.failures, rng)
                                   for t in (tau, tau / 2, 2 * tau)]
                        predicted = 100 * plan["expectedEttr"]
                        diff = predicted - figures[0]
                        worst = max(worst, abs(diff))
                        points += 1
                        # Noise of the simulation: a fraction of a point at these counts.
                        near_best += figures[0] >= max(figures[1:]) - 0.2
                        print("{:>5} {:>5} {:>4} {:>4} {:>8} {:>8.2f}% {:>8.2f}% {:>+6.2f} "
                              "{:>8.2f}% {:>8.2f}%".format(nodes, mtbf, cost, restart, tau,
                                                           predicted, figures[0], diff,
                                                           figures[1], figures[2]))
                        sys.stdout.flush()
    print("{} points, {} failures each: max |predicted - simulated| = {:.2f} ETTR points "
          "(target <= 2); the planned interval within 0.2 points of the best of tau/2, tau, "
          "2 tau at {} of {}".format(points, args.failures, worst, near_best, points))
    return 0 if worst <= 2 else 1


if __name__ == "__main__":
    sys.exit(main())
