"""A 2-node x 2-rank gloo DDP job whose collectives and steps are recorded in pai's telemetry
rings (pai.telemetry), for the coordinator's diagnosis (design §12).

Run by tests/launcher/multi_node/diagnosis_job_test.cpp and bench/diagnosis.sh; SCENARIO picks
what it does (STEPS overrides its number of steps; with FAULT_STAMP set, the faulty rank writes
the wall-clock time its fault began there, for the benchmark's detection latency):
  healthy  300 short steps on every rank.
  slow     rank 3 computes 50% longer per step than the others (a sleep in its step).
  hang     in the first attempt rank 1 blocks at step 10 outside any collective (a sleep),
           so the others wait for it in the gradient all-reduce; the second attempt runs.
  network  every rank alike, with gradients of WIDTH x WIDTH floats (a layer of that size;
           WIDTH 128 by default: 64 KiB) so that the all-reduce dominates a step where a link
           is slow (diagnosis_netns_test.sh).
  resume   as network, and rank 0 checkpoints every 10 steps into $CHECKPOINTS (pai.checkpoint);
           every rank starts from the newest complete checkpoint and says "rank R resumed
           from step N" (diagnosis_netns_test.sh drops a node's packets mid-run).
  swap     local rank 1 of the node at $SLOW_ADDRESS computes SLOWDOWN (2) times as long as
           the others; rank 0 saves a checkpoint into $CHECKPOINTS when should_checkpoint()
           says so (the job plans no interval: only a request, the swap's, asks for one); every
           rank starts from the newest complete
           checkpoint and stamps its lines with the wall-clock time: "rank R started t=T",
           "rank R step N t=T" (swap_job_test.cpp swaps the slow node for a spare).
  drill    steps until the file $FINISH exists (the ranks agree on it every 10 steps); rank 0
           saves a checkpoint into $CHECKPOINTS every 25 steps and every rank starts from the
           newest complete one (drill_job_test.cpp puts pai-launch drill's faults into it); a
           save that fails (a full disk) is said and training goes on.
           Its layer is 16 wide unless WIDTH says otherwise (drill_netns_test.sh: 128, so
           that a slowed link slows its steps).
"""
import os
import time

started = time.time()  # before the framework's import: a restart's time includes it

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
from aimaster import job_monitor as jm  # noqa: E402
from pai import checkpoint, telemetry  # noqa: E402

scenario = os.environ["SCENARIO"]
rank = int(os.environ["RANK"])
attempt = int(os.environ["PAI_RESTART_COUNT"])
monitor = jm.Monitor(config=jm.PyTorchConfig())  # stacks on SIGUSR1 when the job hangs
stamped = scenario == "swap"
if stamped:
    print("rank %d started t=%.3f" % (rank, started), flush=True)

dist.init_process_group("gloo", init_method="env://")
torch.manual_seed(0)
default_width = {"network": "128", "resume": "128", "drill": "16"}
width = int(os.environ.get("WIDTH", default_width[scenario])) if scenario in default_width else 16
model = torch.nn.parallel.DistributedDataParallel(
    torch.nn.Linear(width, 1 if width == 16 else width))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
assert telemetry.instrument(model), "no telemetry ring: PAI_TELEMETRY_FILE is not set"
ring = telemetry.ring()

steps = int(os.environ.get("STEPS", {"healthy": 300, "slow": 100, "hang": 30,
                                     "network": 80, "resume": 150, "swap": 300,
                                     "drill": 10**9}[scenario]))
# swap: steps shorter than the launchers' heartbeat windows in the tests (200 ms), so that
# every window of every rank holds a step's end whatever the windows' phase.
compute = {"healthy": 0.01, "network": 0.02, "resume": 0.02, "swap": 0.04,
           "drill": 0.04}.get(scenario, 0.2)
first = 0
if scenario in ("resume", "swap", "drill"):
    latest = checkpoint.load_latest(dir=os.environ["CHECKPOINTS"])
    if latest is not None:
        first = latest[0] + 1
        model.load_state_dict(latest[1]["model"])
        print("rank %d resumed from step %d" % (rank, latest[0]), flush=True)
if scenario == "slow" and rank == 3:
    compute *= float(os.environ.get("SLOWDOWN", "1.5"))
if (scenario == "swap" and os.environ["PAI_CURRENT_CONTAINER_IP"] == os.environ["SLOW_ADDRESS"]
        and os.environ["LOCAL_RANK"] == "1"):
    compute *= float(os.environ.get("SLOWDOWN", "2"))


def fault_began():
    if os.environ.get("FAULT_STAMP"):
        with open(os.environ["FAULT_STAMP"], "w") as stamp:
            stamp.write("%d\n" % int(time.time() * 1000))


if scenario == "slow" and rank == 3:
    fault_began()

for step in range(first, steps):
    ring.step_begin(step)
    if scenario == "hang" and attempt == 0 and rank == 1 and step == 10:
        fault_began()
        time.sleep(600)
    time.sleep(compute)  # the step's computation, outside collectives
    loss = model(torch.randn(8, width)).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()  # the gradient all-reduce
    optimizer.step()
    ring.step_end(step)
    stamp = " t=%.3f" % time.time() if stamped else ""
    print("rank %d step %d%s" % (rank, step, stamp), flush=True)  # the job-wide hang's signal
    if scenario == "resume" and rank == 0 and step % 10 == 9:
        saved = checkpoint.save_async({"model": model.state_dict()}, step,
                                      dir=os.environ["CHECKPOINTS"])
        assert saved.wait(), saved.error
    if scenario == "drill" and rank == 0 and step % 25 == 24:
        saved = checkpoint.save_async({"model": model.state_dict()}, step,
                                      dir=os.environ["CHECKPOINTS"])
        if not saved.wait():  # a full disk (the drill's disk-full): trained on, saved later
            print("rank 0 could not save step %d: %s" % (step, saved.error), flush=True)
    if scenario == "drill" and step % 10 == 9:
        done = torch.tensor([1.0 if os.path.exists(os.environ["FINISH"]) else 0.0])
        dist.all_reduce(done)
        if done.item() > 0:
            break
    if scenario == "swap" and rank == 0 and monitor.should_checkpoint(step):
        saved = checkpoint.save_async({"model": model.state_dict()}, step,
                                      dir=os.environ["CHECKPOINTS"])
        assert saved.wait(), saved.error

dist.barrier()
print("rank %d finished attempt %d" % (rank, attempt), flush=True)
