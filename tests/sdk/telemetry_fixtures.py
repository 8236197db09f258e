"""What the SDK's telemetry tests share: ring files written from the layout alone, torch
hidden as if not installed, and a one-process gloo group per test class."""

import os
import shutil
import struct
import sys
import tempfile
import unittest

import sdk_path  # noqa: F401 - before pai
from pai import telemetry

try:
    import torch  # noqa: F401 - the tests that use HAVE_TORCH use torch too
    import torch.distributed as dist
    HAVE_TORCH = dist.is_available()
except Exception:  # noqa: BLE001
    HAVE_TORCH = False

RECORD = struct.Struct("<QQHHIqQQ16s")


def make_ring(path, capacity=8, rank=3, magic=0x54494150, version=1, record_size=64, size=None):
    """A ring file written from the layout alone, as the launcher creates it."""
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHIii44x", magic, version, record_size, capacity, rank, 0))
        f.truncate(128 + capacity * 64 if size is None else size)
    return path


def head_of(path):
    with open(path, "rb") as f:
        return struct.unpack_from("<Q", f.read(), 64)[0]


def records_of(path):
    """Every record still in the ring, oldest first, as dicts."""
    with open(path, "rb") as f:
        data = f.read()
    capacity = struct.unpack_from("<I", data, 8)[0]
    head = struct.unpack_from("<Q", data, 64)[0]
    out = []
    for n in range(max(0, head - capacity), head):
        seq, t, kind, op, group, step, cseq, nbytes, reserved = RECORD.unpack_from(
            data, 128 + (n % capacity) * 64)
        assert seq == n + 1, (seq, n)
        assert reserved == bytes(16)
        out.append(dict(seq=seq, time_ns=t, kind=kind, op=op, group=group, step=step,
                        collective_seq=cseq, bytes=nbytes))
    return out


def reset_ring():
    """Forgets the process-wide ring, as in a fresh process."""
    if telemetry._RING is not None:
        telemetry._RING.close()
    telemetry._RING = None
    telemetry._RING_TRIED = False


class HiddenTorch:
    """Within it, `import torch` raises ImportError, as without torch."""

    def __enter__(self):
        self.saved = {name: sys.modules[name] for name in list(sys.modules)
                      if name == "torch" or name.startswith("torch.")}
        for name in self.saved:
            del sys.modules[name]
        sys.modules["torch"] = None
        return self

    def __exit__(self, *exception):
        del sys.modules["torch"]
        sys.modules.update(self.saved)
        return False


class GlooGroup:
    """A TestCase mixin: a one-process gloo group for the class's tests, and (with
    undo_instrument in setUp) torch.distributed's functions as they were after each test."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        if dist.is_initialized():
            raise unittest.SkipTest("another test of this process holds a process group")
        cls.store_dir = tempfile.mkdtemp(prefix="pai-sdk-store-")
        dist.init_process_group("gloo", init_method="file://" + cls.store_dir + "/store",
                                rank=0, world_size=1)

    @classmethod
    def tearDownClass(cls):
        dist.destroy_process_group()
        shutil.rmtree(cls.store_dir)
        super().tearDownClass()

    def undo_instrument(self):
        """Puts back, when the test ends, what instrument() will replace."""
        saved = {name: getattr(dist, name) for name in telemetry._COLLECTIVES
                 if hasattr(dist, name)}
        self.addCleanup(lambda: [setattr(dist, n, f) for n, f in saved.items()])
        self.addCleanup(setattr, telemetry, "_STATE", None)


def ring_in(folder, **layout):
    """A fresh ring file in `folder`, named by PAI_TELEMETRY_FILE."""
    path = make_ring(os.path.join(folder, "r.telemetry"), **layout)
    os.environ["PAI_TELEMETRY_FILE"] = path
    return path
