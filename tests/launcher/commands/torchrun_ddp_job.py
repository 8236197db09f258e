"""A small gloo DDP job for tests/launcher/commands/torchrun_side_by_side.py and
bench/torchrun_restart.sh, run under torchrun or pai-launch torchrun with the same arguments.

Usage: torchrun_ddp_job.py OUT_DIR SCENARIO
  Each rank of each attempt first writes its environment to
  OUT_DIR/attempt-<TORCHELASTIC_RESTART_COUNT>/rank-<RANK>.json, then:
  ok         trains 3 DDP steps;
  kill-once  the same, but in attempt 0 the last rank SIGKILLs itself after step 1, writing
             OUT_DIR/killed (the time of the kill);
  lose-node  the same, but the last rank SIGKILLs its parent, the launcher of its node (a node
             lost: bench/spare_restart.sh), and then itself;
  raise      rank 1 raises ValueError under @record (torchelastic's error file), once rank 0
             wrote its environment;
  Each rank writes OUT_DIR/attempt-<N>/step-<RANK> (the time of its first step),
  OUT_DIR/attempt-<N>/times-<RANK> (JSON: when the interpreter ran this file, when torch was
  imported, when the process group was made, the first step) and OUT_DIR/attempt-<N>/done-<RANK>
  when it finishes.
"""

import time

STARTED = time.time()

import json
import os
import signal
import sys

import torch
import torch.distributed as dist
from torch.distributed.elastic.multiprocessing.errors import record


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


IMPORTED = time.time()


@record
def main():
    out, scenario = sys.argv[1], sys.argv[2]
    attempt = int(os.environ["TORCHELASTIC_RESTART_COUNT"])
    rank = int(os.environ["RANK"])
    folder = os.path.join(out, "attempt-%d" % attempt)
    os.makedirs(folder, exist_ok=True)
    write(os.path.join(folder, "rank-%d.json" % rank), json.dumps(dict(os.environ), sort_keys=True))
    if scenario == "raise" and rank == 1:
        # Once rank 0 wrote its environment: stopped by the failure before that (still
        # importing torch on a loaded machine), it would leave nothing to compare.
        deadline = time.time() + 60
        while not os.path.exists(os.path.join(folder, "rank-0.json")) and time.time() < deadline:
            time.sleep(0.05)
        raise ValueError("bad batch on rank 1")
    dist.init_process_group("gloo")
    grouped = time.time()
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(4, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    last = int(os.environ["WORLD_SIZE"]) - 1
    for step in range(3):
        loss = model(torch.ones(8, 4)).sum()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step == 0:
            stepped = time.time()
            write(os.path.join(folder, "step-%d" % rank), "%.6f" % stepped)
            write(os.path.join(folder, "times-%d" % rank),
                  json.dumps({"started": STARTED, "imported": IMPORTED, "grouped": grouped,
                              "stepped": stepped}))
        if scenario in ("kill-once", "lose-node") and attempt == 0 and rank == last and step == 1:
            write(os.path.join(out, "killed"), "%.6f" % time.time())
            if scenario == "lose-node":
                os.kill(os.getppid(), signal.SIGKILL)
            os.kill(os.getpid(), signal.SIGKILL)
    dist.destroy_process_group()
    write(os.path.join(folder, "done-%d" % rank), "%.6f" % time.time())


if __name__ == "__main__":
    main()
