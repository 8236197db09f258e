"""pai._step_guard: holding an optimizer's step() until a copy is done, without torch."""

import threading
import unittest

import sdk_path  # noqa: F401 - before pai
from pai import _step_guard


class FakeOptimizer:
    """Enough of torch.optim.Optimizer: param_groups, state, step()."""

    def __init__(self) -> None:
        self.param_groups = [{"params": []}]
        self.state = {}
        self.steps = 0

    def step(self) -> int:
        self.steps += 1
        return self.steps


class HookedOptimizer(FakeOptimizer):
    """torch >= 2.0 has step pre-hooks."""

    def __init__(self) -> None:
        super().__init__()
        self.hooks = []

    def register_step_pre_hook(self, hook) -> None:
        self.hooks.append(hook)

    def step(self) -> int:
        for hook in self.hooks:
            hook(self, (), {})
        return super().step()


class StepGuardTest(unittest.TestCase):
    def setUp(self) -> None:
        self.addCleanup(_step_guard.release)

    def assert_step_waits(self, optimizer: FakeOptimizer) -> None:
        gate = _step_guard.CopyGate()
        _step_guard.hold([optimizer], gate)
        stepper = threading.Thread(target=optimizer.step)
        stepper.start()
        stepper.join(0.2)
        self.assertTrue(stepper.is_alive(), "step() did not wait")
        self.assertEqual(optimizer.steps, 0)
        gate.open()
        stepper.join(10)
        self.assertFalse(stepper.is_alive())
        self.assertEqual(optimizer.steps, 1)
        self.assertGreater(gate.waited, 0.15)
        self.assertEqual(optimizer.step(), 2)  # an open gate holds nothing

    def test_a_method_on_the_instance_before_torch_2(self) -> None:
        optimizer = FakeOptimizer()
        self.assert_step_waits(optimizer)
        self.assertIs(optimizer.step.__self__, optimizer)  # LR schedulers need a bound method

    def test_a_pre_hook_with_torch_2(self) -> None:
        optimizer = HookedOptimizer()
        self.assert_step_waits(optimizer)
        self.assertEqual(len(optimizer.hooks), 1)
        self.assertNotIn("step", vars(optimizer))

    def test_installed_once(self) -> None:
        for optimizer in (FakeOptimizer(), HookedOptimizer()):
            for _ in range(3):
                _step_guard.hold([optimizer], _step_guard.CopyGate())
            _step_guard.release()
            self.assertEqual(optimizer.step(), 1)
        self.assertEqual(len(optimizer.hooks), 1)

    def test_only_the_newest_gate_holds(self) -> None:
        optimizer = FakeOptimizer()
        _step_guard.hold([optimizer], _step_guard.CopyGate())  # never opened
        newer = _step_guard.CopyGate()
        newer.open()
        _step_guard.hold([optimizer], newer)
        self.assertEqual(optimizer.step(), 1)

    def test_optimizers_of(self) -> None:
        one, two = FakeOptimizer(), FakeOptimizer()
        self.assertEqual(_step_guard.optimizers_of(None), [])
        self.assertEqual(_step_guard.optimizers_of(one), [one])
        self.assertEqual(_step_guard.optimizers_of((one, two)), [one, two])
        for wrong in ("adam", [one, object()], {"params": []}):
            with self.assertRaisesRegex(TypeError, "takes a torch.optim.Optimizer"):
                _step_guard.optimizers_of(wrong)


if __name__ == "__main__":
    unittest.main()
