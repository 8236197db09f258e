"""A 2-node x 2-rank gloo DDP job that uses the pai SDK through its AIMaster names.

Run by tests/launcher/multi_node/sdk_job_test.cpp; SCENARIO picks what it does:
  message    rank 0 sends a custom message; every rank adds a retryable error keyword and, in
             the first attempt, rank 3 fails with that keyword at step 5 (so the job restarts).
  reset      every rank shortens the hang interval to 5 s; in the first attempt rank 1 stops at
             step 3, so the others wait in all-reduce and the job hangs.
  resume     rank 0 saves a checkpoint every 4 steps (pai.checkpoint.save_async with
             optimizer=: the copy overlaps the next step's forward and backward); in the first
             attempt rank 2 is killed with SIGKILL at step 10 (so rank 0 has begun saving
             step 8: every rank passed step 9's all-reduce); the second attempt resumes from
             the newest complete checkpoint (PAI_LATEST_CHECKPOINT).
  suppressed every rank shortens the hang interval to 5 s, then sleeps 8 s inside
             hang_detect(-1), which turns detection off for the scope and restores 5 s after.
"""
import os
import signal
import sys
import time

import torch
import torch.distributed as dist
from aimaster import job_monitor as jm
from pai import checkpoint

STEPS = 12

scenario = os.environ["SCENARIO"]
rank = int(os.environ["RANK"])
attempt = int(os.environ["PAI_RESTART_COUNT"])
monitor = jm.Monitor(config=jm.PyTorchConfig())

dist.init_process_group("gloo", init_method="env://")
torch.manual_seed(0)
model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(16, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)

if scenario == "message":
    if rank == 0:
        status = monitor.send_custom_message(content="loss is NaN at attempt %d" % attempt)
        assert status.ok(), status.to_string()
    assert monitor.set_retryable_errors(["flaky storage"]).ok()
elif scenario == "reset":
    # 5 s, not less: a loaded CI machine can hold a healthy rank silent for 2 s.
    assert monitor.reset_config(job_hang_interval=5).ok()
elif scenario == "suppressed":
    assert monitor.reset_config(job_hang_interval=5).ok()
    with jm.hang_detect(-1):
        time.sleep(8)

first = 0
if scenario == "resume":
    latest = checkpoint.load_latest()
    if latest is not None:
        saved, state = latest
        model.module.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        first = saved + 1
        print("resumed from step %d (PAI_LATEST_CHECKPOINT=%s)"
              % (saved, os.environ.get("PAI_LATEST_CHECKPOINT", "")), flush=True)

for step in range(first, STEPS):
    if scenario == "resume" and attempt == 0 and rank == 2 and step == 10:
        os.kill(os.getpid(), signal.SIGKILL)
    if scenario == "message" and attempt == 0 and rank == 3 and step == 5:
        print("flaky storage: read of shard 17 failed", flush=True)
        sys.exit(1)
    if scenario == "reset" and attempt == 0 and rank == 1 and step == 3:
        time.sleep(120)
    loss = model(torch.randn(8, 16)).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    monitor.report_step(step)
    if scenario == "resume" and rank == 0 and step % 4 == 0:
        checkpoint.save_async(
            {"model": model.module.state_dict(), "optimizer": optimizer.state_dict()}, step,
            optimizer=optimizer)  # the copy overlaps the next forward and backward
    time.sleep(0.05)

dist.barrier()
print("rank %d finished attempt %d" % (rank, attempt), flush=True)
