"""DDP training written for PAI-DLC's AIMaster, unchanged, on pai (examples/aimaster-ddp.yaml).

The job_monitor calls follow AIMaster's documentation: a monitor for a PyTorch job, a custom
message when the loss goes bad, retryable error keywords, a shorter hang interval for the
training loop and none while the dataset is prepared.
"""
import math
import time

import torch
import torch.distributed as dist
from aimaster import job_monitor as jm

monitor = jm.Monitor(config=jm.PyTorchConfig())
monitor.set_retryable_errors(["connect timeout", "Connection reset by peer"])


@jm.hang_detect(-1)
def prepare_data():
    """Downloading and unpacking may be silent for long: no hang detection in here."""
    time.sleep(1)
    return [torch.randn(32, 64) for _ in range(50)]


dist.init_process_group("gloo", init_method="env://")
model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(64, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
batches = prepare_data()

monitor.reset_config(job_hang_interval=300)  # a step never takes 5 minutes
for step, batch in enumerate(batches):
    loss = model(batch).pow(2).mean()
    if math.isnan(loss.item()):
        monitor.send_custom_message(content="loss is NaN at step %d" % step)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    monitor.report_step(step)
dist.barrier()
