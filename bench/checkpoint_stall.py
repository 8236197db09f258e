#!/usr/bin/python3
"""The training stall per checkpoint: torch.save versus pai.checkpoint.save_async.

    /usr/bin/python3 bench/checkpoint_stall.py                 # 1 GiB of float32 tensors
    /usr/bin/python3 bench/checkpoint_stall.py --size-gib 4 --dir /mnt/nvme

The state is a dict of float32 tensors (--tensor-mib each) totalling --size-gib. Figures,
each the median of --saves runs (the first async save is also shown on its own: it pays
for the first page faults):

  torch.save       time for torch.save(state, file) to return (what a synchronous
                   checkpoint stalls training for), and the fsync after it;
  save_async       time until save_async returns: the stall (copying the tensors to CPU
                   memory), and the whole background write (until handle.wait() returns,
                   fsyncs and renames included); once with fresh copies (the default) and
                   once with keep_buffers=True (copies into the previous save's buffers);
  main thread      how fast a pure-Python loop in the main thread runs while the background
                   write goes on, relative to the same loop idle (the writer's cost to
                   training's CPU side, GIL included);
  optimizer=       save_async(..., optimizer=opt) with the state's tensors as opt's
                   parameters: save_async returns before copying them, the main thread
                   computes (matrix products standing for forward and backward) for each
                   --window, then calls opt.step(), which waits for the copy to finish.
                   The stall is handle.stall_seconds: save_async's time plus step()'s wait;
  ratio            torch.save time / save_async stall. Target (design): >= 10.

--device cuda puts the state on a GPU: the stall is then the device-to-host copy.

Writes under a fresh folder in --dir (default /tmp), removed at the end. Checks free disk
space (2 x size) and available memory (3 x size) first, and halves the size until it fits,
saying so.
"""

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "sdk", "python"))

from pai import checkpoint  # noqa: E402

GIB = 1 << 30
MIB = 1 << 20


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size-gib", type=float, default=1.0, help="state size (1)")
    parser.add_argument("--tensor-mib", type=int, default=64, help="size of each tensor (64)")
    parser.add_argument("--saves", type=int, default=3, help="runs of each kind (3)")
    parser.add_argument("--dir", default="/tmp", help="where to write (/tmp)")
    parser.add_argument("--device", default="cpu",
                        help="where the state lives: cpu (default), cuda, cuda:1...")
    parser.add_argument("--windows", default="0.25,1",
                        help="seconds of compute between save_async(optimizer=) and "
                             "step(), comma-separated (0.25,1)")
    options = parser.parse_args()
    try:
        import torch
    except ImportError:
        print("torch is not installed: nothing to measure (use /usr/bin/python3)")
        return 2

    size = int(options.size_gib * GIB)
    size, notes = fit(size, options.dir)
    work = tempfile.mkdtemp(prefix="pai-checkpoint-bench-", dir=options.dir)
    try:
        state = make_state(torch, size, options.tensor_mib * MIB, options.device)
        print("state: {} in {} float32 tensors on {}; writing under {} ({}, {} free); "
              "{} CPUs, torch {} with {} threads; load average {}".format(
                  human(size), len(state), options.device, work, filesystem(work),
                  human(shutil.disk_usage(work).free), os.cpu_count(), torch.__version__,
                  torch.get_num_threads(), " ".join(open("/proc/loadavg").read().split()[:3])))
        for note in notes:
            print("note: " + note)
        rate = loop_rate(1.0)

        saves = [sync_save(torch, state, work) for _ in range(options.saves)]
        save_s = statistics.median(s for s, _ in saves)
        fsync_s = statistics.median(f for _, f in saves)
        print("torch.save to a file:      {:7.3f} s   (+ fsync {:.3f} s)   median of {}"
              .format(save_s, fsync_s, len(saves)))

        results = {}
        for keep in (False, True):
            runs = [async_save(state, work, step, keep, rate) for step in range(options.saves)]
            results[keep] = runs
            later = runs[1:] or runs
            stall = statistics.median(r[0] for r in later)
            total = statistics.median(r[1] for r in later)
            share = statistics.median(r[2] for r in later)
            print("save_async {:13s}   stall {:7.3f} s (first save {:.3f} s), background "
                  "write {:.3f} s, main thread at {:.0f}% while writing; torch.save / stall "
                  "= {:.1f}x (with its fsync {:.1f}x)".format(
                      "keep_buffers:" if keep else "fresh copies:", stall, runs[0][0], total,
                      100 * share, save_s / stall, (save_s + fsync_s) / stall))
            checkpoint._buffers.clear()
        windows = [float(text) for text in options.windows.split(",") if text.strip()]
        parameters = [torch.nn.Parameter(tensor, requires_grad=False)
                      for tensor in state.values()]
        optimizer = torch.optim.SGD(parameters, lr=0.1)  # no gradients: step() is only the wait
        overlapped = []  # (stall, lost) of each kind with a compute window
        for keep in (False, True):
            for window in windows:
                compute = Compute(torch, window, options.device)
                runs = [overlapped_save(torch, state, optimizer, work, step, keep, compute,
                                        options.device) for step in range(options.saves)]
                later = runs[1:] or runs
                stall = statistics.median(r[0] for r in later)
                lost = statistics.median(r[1] for r in later)
                print("save_async optimizer= {:13s} compute {:.2f} s: stall {:6.3f} s (first "
                      "save {:.3f} s), lost with the compute's slowdown {:.3f} s; torch.save / "
                      "stall = {:.0f}x, / lost = {:.1f}x".format(
                          "keep_buffers," if keep else "fresh copies,", compute.idle_seconds,
                          stall, runs[0][0], lost, save_s / max(stall, 1e-3),
                          save_s / max(lost, 1e-3)))
                if window > 0:
                    overlapped.append((stall, lost))
            checkpoint._buffers.clear()
        best = max(min([statistics.median(r[0] for r in (runs[1:] or runs))
                        for runs in results.values()] + [s for s, _ in overlapped]), 1e-3)
        print("target: stall >= 10x shorter than torch.save: {} (best {:.0f}x)".format(
            "met" if save_s / best >= 10 else "NOT met", save_s / best))
        if overlapped:
            lost = max(min(l for _, l in overlapped), 1e-3)
            print("time lost per checkpoint with optimizer= (stall + the compute's slowdown "
                  "while the copy and the write share this machine's CPUs): best {:.3f} s, "
                  "{:.1f}x shorter than torch.save".format(lost, save_s / lost))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


def fit(size: int, directory: str):
    """The largest size <= `size` (halving) that the disk and memory hold, and notes."""
    notes = []
    free_disk = shutil.disk_usage(directory).free
    available = memory_available()
    wanted = size
    while size > 16 * MIB and (2 * size > free_disk or (available and 3 * size > available)):
        size //= 2
    if size != wanted:
        notes.append("asked for {}, using {}: {} free on disk, {} memory available (needs "
                     "2x on disk, 3x in memory)".format(human(wanted), human(size),
                                                        human(free_disk), human(available)))
    return size, notes


def make_state(torch, size: int, tensor_bytes: int, device: str) -> dict:
    state = {}
    left = size
    while left > 0:
        count = min(tensor_bytes, left) // 4
        state["t{}".format(len(state))] = torch.rand(count, device=device)
        left -= count * 4
    return state


def sync_save(torch, state: dict, work: str):
    path = os.path.join(work, "sync.pt")
    start = time.perf_counter()
    torch.save(state, path)
    saved = time.perf_counter()
    descriptor = os.open(path, os.O_RDONLY)
    os.fsync(descriptor)
    os.close(descriptor)
    synced = time.perf_counter()
    os.unlink(path)
    return saved - start, synced - saved


def async_save(state: dict, work: str, step: int, keep: bool, idle_rate: float):
    """(stall, whole write, main-thread loop speed during the write relative to idle)."""
    output = os.path.join(work, "keep" if keep else "fresh")
    start = time.perf_counter()
    handle = checkpoint.save_async(state, step, dir=output, keep_buffers=keep)
    returned = time.perf_counter()
    iterations = 0
    while not handle.done():
        iterations += busy(0.05)
    finished = time.perf_counter()
    if not handle.wait():
        raise SystemExit("save failed: {}".format(handle.error))
    share = iterations / (finished - returned) / idle_rate if finished > returned else 1.0
    shutil.rmtree(handle.path)
    return returned - start, finished - start, share


def overlapped_save(torch, state: dict, optimizer, work: str, step: int, keep: bool,
                    compute, device: str):
    """(stall, lost): save_async(optimizer=), the `compute` iterations, optimizer.step().
    stall is handle.stall_seconds; lost is the time from the call to step()'s return less
    what the same compute takes without a save: the stall plus the compute's slowdown
    while the copy and the write share the machine."""
    output = os.path.join(work, "overlap")
    start = time.perf_counter()
    handle = checkpoint.save_async(state, step, dir=output, keep_buffers=keep,
                                   optimizer=optimizer)
    compute.run()
    optimizer.step()
    lost = time.perf_counter() - start - compute.idle_seconds
    if not handle.wait():
        raise SystemExit("save failed: {}".format(handle.error))
    shutil.rmtree(handle.path)
    return handle.stall_seconds, max(lost, 0.0)


class Compute:
    """Matrix products standing for forward and backward (torch releases the GIL in them,
    as in real training): as many as take `seconds` on an idle machine."""

    def __init__(self, torch, seconds: float, device: str) -> None:
        self.torch = torch
        self.device = device
        self.iterations = 0
        self.idle_seconds = 0.0
        if seconds > 0:
            self.iterations = max(1, int(seconds / self.measure(20) * 20))
            self.idle_seconds = self.measure(self.iterations)

    def measure(self, iterations: int) -> float:
        start = time.perf_counter()
        self.iterations, saved = iterations, self.iterations
        self.run()
        self.iterations = saved
        return time.perf_counter() - start

    def run(self) -> None:
        left = self.torch.rand(256, 256, device=self.device)
        for _ in range(self.iterations):
            left = self.torch.tanh(left @ left)
        if self.device.startswith("cuda"):
            self.torch.cuda.synchronize()


def busy(seconds: float) -> int:
    """A pure-Python loop for `seconds`; returns its iterations."""
    end = time.perf_counter() + seconds
    iterations = 0
    while time.perf_counter() < end:
        iterations += 1
    return iterations


def loop_rate(seconds: float) -> float:
    start = time.perf_counter()
    iterations = sum(busy(0.05) for _ in range(int(seconds / 0.05)))
    return iterations / (time.perf_counter() - start)


def memory_available() -> int:
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def filesystem(path: str) -> str:
    """The file system type of `path`, from /proc/self/mounts."""
    best, kind = "", "?"
    real = os.path.realpath(path)
    try:
        with open("/proc/self/mounts") as mounts:
            for line in mounts:
                fields = line.split()
                point = fields[1]
                if (real == point or real.startswith(point.rstrip("/") + "/")) \
                        and len(point) >= len(best):
                    best, kind = point, fields[2]
    except OSError:
        pass
    return kind


def human(count: int) -> str:
    for unit, scale in (("GiB", GIB), ("MiB", MIB)):
        if count >= scale:
            return "{:.2f} {}".format(count / scale, unit)
    return "{} B".format(count)


if __name__ == "__main__":
    sys.exit(main())
