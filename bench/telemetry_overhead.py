#!/usr/bin/env python3
"""What the telemetry ring costs a training process (bench/README.md).

    bench/telemetry_overhead.py [--records N] [--steps N] [--width N] [--layers N]
                                [--batch N] [--dir DIR]

1. Writing records: Ring.step_begin and Ring.collective_enter called N times in a loop, on a
   ring created the way pai-launch creates it (in a folder of DIR, default $TMPDIR or /tmp, as
   the launcher's /tmp/pai); ns per record and records/s, the best of 5 runs.
2. One wrapped collective: dist.all_reduce of a 4-byte tensor on a one-process gloo group,
   plain and after instrument(); the difference is what the two records and the wrapper add.
   Then the DDP comm hook's own work per bucket (two records, the future's callback), timed
   around an allreduce that is already finished.
3. A small DDP job (one process, gloo, CPU; a few linear layers): the step time of the same
   model with DDP's built-in allreduce, with DDP's own allreduce_hook registered, and with
   instrument(model) (a comm hook recording each bucket's all-reduce around allreduce_hook)
   plus step_begin/step_end every step. Steps go round-robin between the three, so that a busy
   machine slows all alike; printed for wall time and for the process's CPU time (which other
   processes on a busy machine disturb less): medians, and the mean of the paired differences
   with its standard error; then the cost computed from parts 1 and 2. Target: overhead below
   0.5% of the step.

Parts 2 and 3 need torch; without it they are skipped.
"""
import argparse
import os
import shutil
import statistics
import struct
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "sdk", "python"))

from pai import telemetry  # noqa: E402


def make_ring(path, capacity=1024):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHIii44x", telemetry.MAGIC, 1, 64, capacity, 0, 0))
        f.truncate(128 + capacity * 64)
    return path


def bench_records(path, n):
    """ns per record (the slower of the two kinds)."""
    ring = telemetry.Ring(path)
    worst = 0.0
    try:
        for name, call in (("step_begin", lambda i: ring.step_begin(i)),
                           ("collective_enter",
                            lambda i: ring.collective_enter(telemetry.ALL_REDUCE, 0, i, 4096, i))):
            best = None
            for _ in range(5):
                t0 = time.perf_counter_ns()
                for i in range(n):
                    call(i)
                ns = (time.perf_counter_ns() - t0) / n
                best = ns if best is None else min(best, ns)
            # The loop and the lambda alone, to subtract.
            t0 = time.perf_counter_ns()
            for i in range(n):
                (lambda i: None)(i)
            loop = (time.perf_counter_ns() - t0) / n
            print("  {:<17} {:7.0f} ns/record ({:.2f} M records/s); loop and call alone {:.0f} ns"
                  .format(name, best, 1e3 / best, loop))
            worst = max(worst, best)
    finally:
        ring.close()
    return worst


def bench_collective(torch, dist, n):
    """ns the DDP hook adds per bucket, or None."""
    x = torch.ones(1)

    def per_call():
        t0 = time.perf_counter_ns()
        for _ in range(n):
            dist.all_reduce(x)
        return (time.perf_counter_ns() - t0) / n

    plain = min(per_call() for _ in range(3))
    if not telemetry.instrument():
        print("  instrument() returned False: no figures")
        return None
    wrapped = min(per_call() for _ in range(3))
    print("  all_reduce of 4 bytes: plain {:.1f} us, instrumented {:.1f} us: +{:.2f} us per call"
          .format(plain / 1e3, wrapped / 1e3, (wrapped - plain) / 1e3))

    # The DDP hook's own work per bucket: around an allreduce that is already done.
    class Bucket:
        def __init__(self):
            self.tensor = torch.zeros(1 << 18)

        def buffer(self):
            return self.tensor

    def done_allreduce(group, bucket):
        future = torch.futures.Future()
        future.set_result(bucket.buffer())
        return future

    bucket = Bucket()
    hook = telemetry._ddp_hook(telemetry._STATE, done_allreduce)

    def per_bucket(fn):
        t0 = time.perf_counter_ns()
        for _ in range(n):
            fn(None, bucket).wait()
        return (time.perf_counter_ns() - t0) / n

    bare = min(per_bucket(done_allreduce) for _ in range(3))
    hooked = min(per_bucket(hook) for _ in range(3))
    print("  DDP hook per bucket, around a finished allreduce: +{:.2f} us ({:.2f} us vs {:.2f} us)"
          .format((hooked - bare) / 1e3, hooked / 1e3, bare / 1e3))
    return hooked - bare


def bench_ddp(torch, steps, width, layers, batch, record_ns, hook_ns):
    from torch.distributed.algorithms.ddp_comm_hooks.default_hooks import allreduce_hook

    DDP = torch.nn.parallel.DistributedDataParallel

    def model():
        torch.manual_seed(0)
        parts = []
        for _ in range(layers):
            parts += [torch.nn.Linear(width, width), torch.nn.ReLU()]
        return DDP(torch.nn.Sequential(*parts))

    # DDP's built-in allreduce; DDP's own allreduce_hook, which instrument() runs inside its
    # hook (a comm hook makes DDP divide by the world size in a pass of its own); instrumented.
    builtin, hooked, instrumented = model(), model(), model()
    hooked.register_comm_hook(None, allreduce_hook)
    if not telemetry.instrument(instrumented):
        print("  instrument() returned False: no figures")
        return
    ring = telemetry.ring()
    data = torch.randn(batch, width)
    models = [(builtin, False), (hooked, False), (instrumented, True)]
    optimizers = [torch.optim.SGD(m.parameters(), lr=1e-6) for m, _ in models]

    def step(k, n):
        m, record = models[k]
        t0, c0 = time.perf_counter_ns(), time.process_time_ns()
        if record:
            ring.step_begin(n)
        optimizers[k].zero_grad()
        m(data).square().mean().backward()
        optimizers[k].step()
        if record:
            ring.step_end(n)
        return time.perf_counter_ns() - t0, time.process_time_ns() - c0

    for n in range(5):  # warm-up
        for k in range(3):
            step(k, n)
    written = ring.written
    times = [[], [], []]
    for n in range(steps):
        # Round-robin step by step, in a rotating order, so that a busy machine slows all alike.
        for i in range(3):
            k = (n + i) % 3
            times[k].append(step(k, n))
    per_step = (ring.written - written) / steps
    params = sum(p.numel() for p in builtin.parameters())
    print("  model: {} x Linear({w}, {w}), {:.2f} M parameters, batch {}, {} torch threads; "
          "{:.0f} records per step; {} steps each"
          .format(layers, params / 1e6, batch, torch.get_num_threads(), per_step, steps, w=width))

    def compare(name, column, base, other):
        x = [t[column] for t in times[base]]
        y = [t[column] for t in times[other]]
        px, py = statistics.median(x), statistics.median(y)
        diffs = [q - p for p, q in zip(x, y)]
        mean = statistics.mean(diffs)
        error = statistics.stdev(diffs) / len(diffs) ** 0.5
        print("    {:<34} median {:8.3f} -> {:8.3f} ms ({:+.2f}%); paired mean {:+.2f}% +- {:.2f}%"
              .format(name, px / 1e6, py / 1e6, (py / px - 1) * 100, mean / px * 100,
                      error / px * 100))

    for label, column in (("wall time", 0), ("CPU time of the process", 1)):
        print("  {}:".format(label))
        compare("instrumented vs built-in allreduce", column, 0, 2)
        compare("allreduce_hook vs built-in", column, 0, 1)
        compare("instrumented vs allreduce_hook", column, 1, 2)
    median_cpu = statistics.median(t[1] for t in times[0])
    buckets = (per_step - 2) / 2
    cost = 2 * record_ns + buckets * (hook_ns or 0)
    print("  from parts 1 and 2: 2 step records x {:.2f} us + {:.0f} buckets x {:.2f} us = "
          "{:.1f} us = {:.3f}% of the median step (CPU time)"
          .format(record_ns / 1e3, buckets, (hook_ns or 0) / 1e3, cost / 1e3,
                  cost / median_cpu * 100))
    print("  target: overhead below 0.5% of the step")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=200000)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--width", type=int, default=512)
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--dir", default=tempfile.gettempdir())
    args = parser.parse_args()

    print("load average: {:.2f} {:.2f} {:.2f}; python {}".format(*os.getloadavg(),
                                                                 sys.version.split()[0]))
    work = tempfile.mkdtemp(prefix="pai-telemetry-bench-", dir=args.dir)
    try:
        print("1. writing records (Python, struct.pack_into into the mapping):")
        record_ns = bench_records(make_ring(os.path.join(work, "bench.telemetry")), args.records)

        try:
            import torch
            import torch.distributed as dist
        except ImportError:
            print("2., 3.: skipped: no torch")
            return
        os.environ["PAI_TELEMETRY_FILE"] = make_ring(os.path.join(work, "rank-0.telemetry"))
        dist.init_process_group("gloo", init_method="file://" + work + "/store", rank=0,
                                world_size=1)
        try:
            print("2. one collective (torch {}, gloo, 1 process):".format(torch.__version__))
            hook_ns = bench_collective(torch, dist, 20000)
            print("3. DDP step time (gloo, 1 process, CPU):")
            bench_ddp(torch, args.steps, args.width, args.layers, args.batch, record_ns, hook_ns)
        finally:
            dist.destroy_process_group()
    finally:
        shutil.rmtree(work)
    print("load average: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))


if __name__ == "__main__":
    main()
