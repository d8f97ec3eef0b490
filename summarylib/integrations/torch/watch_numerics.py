"""The NaN/Inf check of `watch(..., check_numerics=True)`: which module, in execution
order, first produced a non-finite output or gradient.

Each checked tensor costs one reduction on its own device, a sum (NaN or ±Inf anywhere
make it non-finite; in float32 for half-precision tensors; a float64 sum, which could
not overflow, costs five times as much on a CPU), kept as a device tensor. Nothing is
read back until the end of a pass (a forward pass of the watched model, a backward pass
through it), when all the sums are stacked and looked at at once: one synchronization
per pass, not per module. Until then the checked tensors are kept referenced (in
training most are kept for the backward pass anyway), so that the first non-finite
one's NaN, +Inf and -Inf can be counted exactly; a tensor whose finite values only
overflowed its sum counts none and is passed over.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class NonFinite:
    """The first checked tensor of a pass that held NaN or ±Inf."""

    step: int
    module: str
    kind: str
    shape: tuple[int, ...]
    nan: int
    posinf: int
    neginf: int
    tensors: int  # checked tensors of the pass holding NaN or ±Inf, this one included

    def message(self) -> str:
        """The text written to `numerics/first_nonfinite` and raised."""
        return (
            f"step {self.step}: first non-finite values in the {self.kind} of module "
            f"{self.module or '(the model)'!r}, shape {list(self.shape)}: {self.nan} NaN, "
            f"{self.posinf} +Inf, {self.neginf} -Inf ({self.tensors} checked tensor(s) of this pass "
            "held NaN or Inf)"
        )


class NumericsCheck:
    """Collects per-tensor sums in execution order; `end_pass` finds the first bad one."""

    def __init__(self) -> None:
        self._sums: list[torch.Tensor] = []
        self._checked: list[tuple[str, str, torch.Tensor]] = []

    def check(self, module: str, kind: str, tensor: object) -> None:
        """Queue the check of `tensor` (a module's output or a gradient); other objects
        and non-floating tensors are skipped."""
        if not isinstance(tensor, torch.Tensor) or not tensor.is_floating_point():
            return
        tensor = tensor.detach()
        # float32 at least: half precision sums would overflow all the time.
        self._sums.append(tensor.sum(dtype=torch.float32) if tensor.element_size() < 4 else tensor.sum())
        self._checked.append((module, kind, tensor))

    def end_pass(self, step: Callable[[], int]) -> NonFinite | None:
        """Look at the sums queued since the last pass (one read from the device); the first
        non-finite tensor, or None. Forgets the pass's tensors either way."""
        sums, checked = self._sums, self._checked
        self._sums, self._checked = [], []
        if not sums:
            return None
        device = sums[0].device
        bad = ~torch.isfinite(torch.stack([s.to(device) for s in sums])).cpu()
        if not bool(bad.any()):
            return None
        for index in bad.nonzero()[:, 0].tolist():
            module, kind, tensor = checked[index]
            counts = torch.stack((tensor.isnan().sum(), tensor.isposinf().sum(), tensor.isneginf().sum()))
            nan, posinf, neginf = (int(c) for c in counts.cpu())
            if nan or posinf or neginf:  # else its finite values overflowed the sum
                return NonFinite(
                    step(), module, kind, tuple(tensor.shape), nan, posinf, neginf, int(bad.sum())
                )
        return None
