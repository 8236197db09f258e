"""The gloo DDP job of bench/goodput_ddp.sh: 2 nodes x 2 ranks, one kill -9 and one hang.

    goodput_ddp_job.py OUT

Every rank trains STEPS steps of a small model (STEP_SLEEP seconds of sleep after each, so
that a step takes about that long on a loaded machine), reports each step to pai-launch
(monitor.report_step: the journals' `steps` records) and, after its process group is up,
shortens the hang interval to HANG_INTERVAL seconds (reset_config; the spec's interval is
long, so that a slow `import torch` on a busy machine is never taken for a hang). Rank 0
saves a checkpoint every CKPT_EVERY steps with pai.checkpoint.save_async(optimizer=); a
restarted rank resumes from the newest complete one (PAI_LATEST_CHECKPOINT).

  attempt 0: at step KILL_STEP rank 2 writes its PID to OUT/kill-pid and trains on; the
             benchmark kills it with kill -9 (pai-launch restarts the job at once).
  attempt 1: at step HANG_STEP rank 1 stops making progress outside any collective (it
             sleeps); the others wait in all-reduce until hang detection stops the job.
  attempt 2: trains to the end.

The faults are tied to the attempts, so a job restarted for another reason shows it as a
missing attempt rather than repeating them. What the ranks saw, by their own clocks, goes to
OUT/timeline/rank-R.attempt-A (one line a step: "STEP UNIX_TIME"), OUT/hang (rank 1: "STEP
UNIX_TIME" when it began to hang) and OUT/stalls (rank 0: "STEP STALL_SECONDS" per save), for
the benchmark to hold the goodput account against.
"""
import os
import sys
import time

import torch
import torch.distributed as dist
from pai import checkpoint
from pai import job_monitor as jm


def setting(name, default, kind=int):
    return kind(os.environ.get("GOODPUT_" + name, default))


STEPS = setting("STEPS", 300)
CKPT_EVERY = setting("CKPT_EVERY", 25)
KILL_STEP = setting("KILL_STEP", 115)
HANG_STEP = setting("HANG_STEP", 215)
STEP_SLEEP = setting("STEP_SLEEP", 0.2, float)
HANG_INTERVAL = setting("HANG_INTERVAL", 5)

out = sys.argv[1]
rank = int(os.environ["RANK"])
attempt = int(os.environ["PAI_RESTART_COUNT"])
monitor = jm.Monitor()


def write_atomically(name, text):
    """OUT/name with `text`, complete or absent (the benchmark polls for it)."""
    path = os.path.join(out, name)
    with open(path + ".tmp-%d" % rank, "w") as f:
        f.write(text)
    os.rename(path + ".tmp-%d" % rank, path)


dist.init_process_group("gloo", init_method="env://")
assert monitor.reset_config(job_hang_interval=HANG_INTERVAL).ok()
torch.manual_seed(rank)
model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(256, 256))
optimizer = torch.optim.SGD(model.parameters(), lr=0.001)

first = 0
latest = checkpoint.load_latest()
if latest is not None:
    saved, state = latest
    model.module.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    first = saved + 1
    print("rank %d attempt %d resumed from step %d" % (rank, attempt, saved), flush=True)

os.makedirs(os.path.join(out, "timeline"), exist_ok=True)
timeline = open(os.path.join(out, "timeline", "rank-%d.attempt-%d" % (rank, attempt)), "w")
handle = None
for step in range(first, STEPS):
    if attempt == 1 and rank == 1 and step == HANG_STEP:
        write_atomically("hang", "%d %.3f\n" % (step, time.time()))
        print("rank 1 hangs at step %d" % step, flush=True)
        time.sleep(3600)  # outside any collective: the others wait in the next all-reduce
    loss = model(torch.randn(32, 256)).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    monitor.report_step(step)
    timeline.write("%d %.3f\n" % (step, time.time()))
    timeline.flush()
    if rank == 0 and step % CKPT_EVERY == 0 and step > 0:
        if handle is not None:
            with open(os.path.join(out, "stalls"), "a") as f:
                f.write("%d %.4f\n" % (handle.step, handle.stall_seconds))
        handle = checkpoint.save_async(
            {"model": model.module.state_dict(), "optimizer": optimizer.state_dict()}, step,
            optimizer=optimizer)
    if attempt == 0 and rank == 2 and step == KILL_STEP:
        write_atomically("kill-pid", "%d %d %.3f\n" % (os.getpid(), step, time.time()))
    time.sleep(STEP_SLEEP)

if handle is not None:
    handle.wait()
    with open(os.path.join(out, "stalls"), "a") as f:
        f.write("%d %.4f\n" % (handle.step, handle.stall_seconds))
dist.barrier()
print("rank %d finished attempt %d at step %d" % (rank, attempt, STEPS - 1), flush=True)
