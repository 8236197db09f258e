"""pai.telemetry: the ring's layout as include/pai/telemetry.h defines it, ring() outside
pai-launch, and torch.distributed instrumentation (skipped without torch)."""

import os
import shutil
import struct
import tempfile
import threading
import time
import unittest
import warnings

from telemetry_fixtures import (HAVE_TORCH, RECORD, GlooGroup, HiddenTorch, head_of, make_ring,
                                records_of, reset_ring)
from pai import telemetry

if HAVE_TORCH:
    import torch
    import torch.distributed as dist


class TempDirTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="pai-telemetry-test-")
        self.addCleanup(shutil.rmtree, self.dir)
        saved = os.environ.pop("PAI_TELEMETRY_FILE", None)
        if saved is not None:
            self.addCleanup(os.environ.__setitem__, "PAI_TELEMETRY_FILE", saved)
        self.addCleanup(os.environ.pop, "PAI_TELEMETRY_FILE", None)
        reset_ring()
        self.addCleanup(reset_ring)

    def path(self, name="r.telemetry"):
        return os.path.join(self.dir, name)


class RingTest(TempDirTest):
    def test_records_land_at_their_offsets_with_seq_and_head(self):
        path = make_ring(self.path())
        ring = telemetry.Ring(path)
        self.addCleanup(ring.close)
        self.assertEqual((ring.rank, ring.capacity, ring.written), (3, 8, 0))
        with open(path, "rb") as f:
            self.assertEqual(struct.unpack_from("<i", f.read(), 16)[0], os.getpid())

        before = time.monotonic_ns()
        ring.step_begin(5)
        ring.collective_enter("all_reduce", 2, 9, 4096, 5)
        ring.collective_exit(telemetry.ALL_REDUCE, 2, 9, 4096, step=5)
        ring.collective_enter("no such op", 0, 1, 0)
        ring.step_end(5)
        after = time.monotonic_ns()

        self.assertEqual(head_of(path), 5)
        self.assertEqual(ring.written, 5)
        with open(path, "rb") as f:
            data = f.read()
        self.assertEqual(RECORD.unpack_from(data, 128 + 64)[:2][0], 2)  # record 1 in slot 1
        got = records_of(path)
        self.assertEqual([(r["seq"], r["kind"], r["op"], r["group"], r["step"],
                           r["collective_seq"], r["bytes"]) for r in got], [
            (1, telemetry.STEP_BEGIN, 0, 0, 5, 0, 0),
            (2, telemetry.COLLECTIVE_ENTER, 1, 2, 5, 9, 4096),
            (3, telemetry.COLLECTIVE_EXIT, 1, 2, 5, 9, 4096),
            (4, telemetry.COLLECTIVE_ENTER, 255, 0, -1, 1, 0),
            (5, telemetry.STEP_END, 0, 0, 5, 0, 0),
        ])
        times = [r["time_ns"] for r in got]
        self.assertEqual(times, sorted(times))
        self.assertTrue(before <= times[0] and times[-1] <= after)
        self.assertEqual(ring.step, 5)

    def test_wraps_around_its_capacity(self):
        path = make_ring(self.path(), capacity=4)
        ring = telemetry.Ring(path)
        self.addCleanup(ring.close)
        for step in range(6):
            ring.step_begin(step)
        self.assertEqual(head_of(path), 6)
        with open(path, "rb") as f:
            data = f.read()
        slots = [RECORD.unpack_from(data, 128 + i * 64) for i in range(4)]
        self.assertEqual([(s[0], s[5]) for s in slots], [(5, 4), (6, 5), (3, 2), (4, 3)])
        self.assertEqual(len(data), 128 + 4 * 64)
        self.assertEqual([r["step"] for r in records_of(path)], [2, 3, 4, 5])

    def test_a_later_writer_continues_from_the_head(self):
        path = make_ring(self.path())
        first = telemetry.Ring(path)
        first.step_begin(1)
        first.close()
        second = telemetry.Ring(path)
        self.addCleanup(second.close)
        second.step_begin(2)
        self.assertEqual([(r["seq"], r["step"]) for r in records_of(path)], [(1, 1), (2, 2)])

    def test_one_writer_at_a_time(self):
        path = make_ring(self.path())
        ring = telemetry.Ring(path)
        self.addCleanup(ring.close)
        with self.assertRaises(telemetry.RingTaken) as caught:
            telemetry.Ring(path)
        self.assertEqual(str(caught.exception),
                         "telemetry ring {}: another process writes it".format(path))

    def test_bad_files_are_refused_with_their_reason(self):
        path = self.path()
        cases = [
            (dict(magic=0x464C457F), "not a telemetry ring (bad magic)"),
            (dict(version=2), "version 2, this SDK writes version 1"),
            (dict(record_size=32), "record size 32, expected 64"),
            (dict(capacity=6), "capacity 6 is not a power of two up to 1048576"),
            (dict(capacity=1 << 31, size=128 + 64), "capacity 2147483648 is not a power of two "
                                                     "up to 1048576"),
            (dict(size=128 + 7 * 64), "576 bytes, but a ring of 8 records has 640"),
            (dict(size=10), "truncated: 10 bytes"),
        ]
        for fields, why in cases:
            with self.subTest(why=why):
                make_ring(path, **fields)
                with self.assertRaises(telemetry.RingError) as caught:
                    telemetry.Ring(path)
                self.assertEqual(str(caught.exception), "telemetry ring {}: {}".format(path, why))
        with self.assertRaises(telemetry.RingError) as caught:
            telemetry.Ring(self.path("missing"))
        self.assertEqual(str(caught.exception), "telemetry ring {}: cannot open: No such file "
                         "or directory".format(self.path("missing")))
        with self.assertRaises(telemetry.RingError) as caught:
            telemetry.Ring(self.dir)
        self.assertIn("telemetry ring {}: cannot open:".format(self.dir), str(caught.exception))


def set_drill_hold(path, seconds):
    """Writes the drill's hold `seconds` from now into the ring at `path`, as the launcher
    does (0: clears it)."""
    until = time.monotonic_ns() + int(seconds * 1e9) if seconds else 0
    fd = os.open(path, os.O_WRONLY)
    try:
        os.pwrite(fd, struct.pack("<Q", until), 24)
    finally:
        os.close(fd)


class DrillHoldTest(TempDirTest):
    def test_no_hold_without_the_word(self):
        r = telemetry.Ring(make_ring(self.path()))
        self.assertEqual(r.drill_until(), 0)
        self.assertEqual(r.hold_if_drilled(), 0.0)

    def test_holds_until_the_deadline_and_no_longer(self):
        path = make_ring(self.path())
        r = telemetry.Ring(path)
        set_drill_hold(path, 0.3)
        began = time.monotonic()
        waited = r.hold_if_drilled()
        took = time.monotonic() - began
        self.assertGreaterEqual(took, 0.28)
        self.assertLess(took, 2.0)
        self.assertGreater(waited, 0.2)
        self.assertEqual(r.hold_if_drilled(), 0.0)  # past: no second hold

    def test_a_cleared_hold_ends_at_the_next_look(self):
        path = make_ring(self.path())
        r = telemetry.Ring(path)
        set_drill_hold(path, 60)
        clearing = threading.Timer(0.2, set_drill_hold, (path, 0))
        clearing.start()
        began = time.monotonic()
        r.hold_if_drilled()
        clearing.join()
        self.assertLess(time.monotonic() - began, 5.0)

    def test_a_word_beyond_the_longest_hold_is_ignored(self):
        path = make_ring(self.path())
        r = telemetry.Ring(path)
        set_drill_hold(path, 3661)
        self.assertEqual(r.hold_if_drilled(), 0.0)
        fd = os.open(path, os.O_WRONLY)
        os.pwrite(fd, b"\xff" * 8, 24)  # garbage
        os.close(fd)
        self.assertEqual(r.hold_if_drilled(), 0.0)


class RingOfProcessTest(TempDirTest):
    def test_none_without_the_variable_and_silent(self):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            self.assertIsNone(telemetry.ring())

    def test_none_with_a_bad_file_after_one_warning(self):
        os.environ["PAI_TELEMETRY_FILE"] = make_ring(self.path(), magic=0)
        with self.assertWarns(RuntimeWarning) as caught:
            self.assertIsNone(telemetry.ring())
        self.assertIn("not a telemetry ring (bad magic); nothing is recorded",
                      str(caught.warning))
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            self.assertIsNone(telemetry.ring())

    def test_none_for_a_missing_file(self):
        os.environ["PAI_TELEMETRY_FILE"] = self.path("missing")
        with self.assertWarns(RuntimeWarning):
            self.assertIsNone(telemetry.ring())

    def test_one_ring_per_process(self):
        path = make_ring(self.path())
        os.environ["PAI_TELEMETRY_FILE"] = path
        ring = telemetry.ring()
        self.assertIsNotNone(ring)
        self.assertIs(telemetry.ring(), ring)
        self.assertEqual(ring.path, path)

    def test_none_in_a_forked_child(self):
        os.environ["PAI_TELEMETRY_FILE"] = make_ring(self.path())
        self.assertIsNotNone(telemetry.ring())
        pid = os.fork()
        if pid == 0:
            os._exit(0 if telemetry.ring() is None else 1)
        _, status = os.waitpid(pid, 0)
        self.assertEqual(os.waitstatus_to_exitcode(status) if hasattr(os, "waitstatus_to_exitcode")
                         else status >> 8, 0)

    def test_instrument_without_torch_returns_false(self):
        os.environ["PAI_TELEMETRY_FILE"] = make_ring(self.path())
        with HiddenTorch():
            self.assertFalse(telemetry.instrument())
            self.assertFalse(telemetry.instrument(model=object()))
        self.assertEqual(head_of(self.path()), 0)


@unittest.skipUnless(HAVE_TORCH, "torch.distributed is not available")
class InstrumentTest(GlooGroup, TempDirTest):
    """A one-process gloo group; instrument() replaces torch.distributed's functions for the
    duration of each test only."""

    def setUp(self):
        super().setUp()
        self.ring_path = make_ring(self.path(), capacity=64, rank=0)
        os.environ["PAI_TELEMETRY_FILE"] = self.ring_path
        self.undo_instrument()

    def collectives(self):
        return [(r["kind"], r["op"], r["group"], r["collective_seq"], r["bytes"], r["step"])
                for r in records_of(self.ring_path)
                if r["kind"] in (telemetry.COLLECTIVE_ENTER, telemetry.COLLECTIVE_EXIT)]

    def test_false_without_a_ring(self):
        del os.environ["PAI_TELEMETRY_FILE"]
        original = dist.all_reduce
        self.assertFalse(telemetry.instrument())
        self.assertIs(dist.all_reduce, original)

    def test_all_reduce_and_barrier_record_enter_and_exit(self):
        self.assertTrue(telemetry.instrument())
        self.assertTrue(telemetry.instrument())  # a second call wraps nothing twice
        telemetry.ring().step_begin(7)
        x = torch.ones(10)
        dist.all_reduce(x)
        dist.barrier()
        dist.all_reduce(tensor=torch.ones(3, dtype=torch.float64), async_op=True).wait()
        enter, leave, ar, bar = (telemetry.COLLECTIVE_ENTER, telemetry.COLLECTIVE_EXIT,
                                 telemetry.ALL_REDUCE, telemetry.BARRIER)
        self.assertEqual(self.collectives(), [
            (enter, ar, 0, 1, 40, 7), (leave, ar, 0, 1, 40, 7),
            (enter, bar, 0, 2, 0, 7), (leave, bar, 0, 2, 0, 7),
            (enter, ar, 0, 3, 24, 7), (leave, ar, 0, 3, 24, 7),
        ])
        self.assertEqual(x.tolist(), [1.0] * 10)

    def test_a_new_group_has_its_own_id_and_sequence(self):
        group = dist.new_group([0])
        self.assertTrue(telemetry.instrument())
        dist.all_reduce(torch.ones(1), group=group)
        dist.broadcast(torch.ones(2), 0, group)
        dist.all_reduce(torch.ones(1))
        got = [(kind, op, gid, seq) for kind, op, gid, seq, _, _ in self.collectives()]
        gid = got[0][2]
        self.assertNotEqual(gid, 0)
        enter, leave = telemetry.COLLECTIVE_ENTER, telemetry.COLLECTIVE_EXIT
        self.assertEqual(got, [
            (enter, telemetry.ALL_REDUCE, gid, 1), (leave, telemetry.ALL_REDUCE, gid, 1),
            (enter, telemetry.BROADCAST, gid, 2), (leave, telemetry.BROADCAST, gid, 2),
            (enter, telemetry.ALL_REDUCE, 0, 1), (leave, telemetry.ALL_REDUCE, 0, 1),
        ])

    def test_a_failing_collective_still_records_its_exit(self):
        self.assertTrue(telemetry.instrument())
        with self.assertRaises(Exception):
            dist.broadcast(torch.ones(1), src=5)  # no rank 5
        kinds = [kind for kind, *_ in self.collectives()]
        self.assertEqual(kinds, [telemetry.COLLECTIVE_ENTER, telemetry.COLLECTIVE_EXIT])

    def test_a_ring_closed_by_the_program_does_not_fail_collectives(self):
        self.assertTrue(telemetry.instrument())
        telemetry.ring().close()
        x = torch.ones(2)
        dist.all_reduce(x)
        dist.all_reduce(x, async_op=True).wait()
        self.assertEqual(x.tolist(), [1.0, 1.0])

    def held_exit(self, nth):
        """Seconds between the enter and the exit of the `nth` collective recorded."""
        got = [r for r in records_of(self.ring_path)
               if r["kind"] in (telemetry.COLLECTIVE_ENTER, telemetry.COLLECTIVE_EXIT)]
        enter, leave = got[2 * nth], got[2 * nth + 1]
        self.assertEqual((enter["kind"], leave["kind"]),
                         (telemetry.COLLECTIVE_ENTER, telemetry.COLLECTIVE_EXIT))
        return (leave["time_ns"] - enter["time_ns"]) / 1e9

    def test_a_drill_holds_a_completed_collective_open_until_its_deadline(self):
        self.assertTrue(telemetry.instrument())
        x = torch.ones(4)
        set_drill_hold(self.ring_path, 0.4)
        dist.all_reduce(x)
        self.assertEqual(x.tolist(), [1.0] * 4)  # it completed, then held
        self.assertGreaterEqual(self.held_exit(0), 0.35)
        set_drill_hold(self.ring_path, 0.4)
        dist.all_reduce(x, async_op=True).wait()
        self.assertGreaterEqual(self.held_exit(1), 0.35)
        set_drill_hold(self.ring_path, 0)
        dist.all_reduce(x)
        self.assertLess(self.held_exit(2), 0.3)

    def test_a_drill_holds_a_ddp_bucket_all_reduce(self):
        model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(4, 2))
        self.assertTrue(telemetry.instrument(model))
        set_drill_hold(self.ring_path, 0.4)
        model(torch.randn(3, 4)).sum().backward()
        self.assertGreaterEqual(self.held_exit(0), 0.35)
        self.assertTrue(all(p.grad is not None for p in model.parameters()))
        set_drill_hold(self.ring_path, 0)
        model(torch.randn(3, 4)).sum().backward()
        self.assertLess(self.held_exit(1), 0.3)

    def test_ddp_backward_records_each_bucket_all_reduce(self):
        torch.manual_seed(0)
        plain = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(),
                                    torch.nn.Linear(16, 4))
        model = torch.nn.parallel.DistributedDataParallel(
            torch.nn.Sequential(*[torch.nn.Linear(8, 16), torch.nn.ReLU(),
                                  torch.nn.Linear(16, 4)]))
        model.module.load_state_dict(plain.state_dict())
        self.assertTrue(telemetry.instrument(model))
        self.assertTrue(telemetry.instrument(model))  # the hook is registered once
        telemetry.ring().step_begin(3)
        batch = torch.randn(5, 8)
        model(batch).square().sum().backward()
        plain(batch).square().sum().backward()
        for mine, reference in zip(model.module.parameters(), plain.parameters()):
            self.assertTrue(torch.allclose(mine.grad, reference.grad))
        nbytes = sum(p.numel() * p.element_size() for p in plain.parameters())
        enter, leave, ar = telemetry.COLLECTIVE_ENTER, telemetry.COLLECTIVE_EXIT, \
            telemetry.ALL_REDUCE
        self.assertEqual(self.collectives(), [(enter, ar, 0, 1, nbytes, 3),
                                              (leave, ar, 0, 1, nbytes, 3)])
        model(batch).sum().backward()
        self.assertEqual([seq for _, _, _, seq, _, _ in self.collectives()], [1, 1, 2, 2])


if __name__ == "__main__":
    unittest.main()
