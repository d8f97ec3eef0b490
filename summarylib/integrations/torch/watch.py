"""`watch(model)`: parameters, gradients and activations of a PyTorch model as histograms
and grid images while it trains, and the first NaN/Inf, through hooks only.

The shape is `wandb.watch`'s. What happens on the training thread is only what must: at a
logged step, one concatenation of the watched tensors into a flat float32 buffer (for a
GPU model, on the device, then an asynchronous copy into pinned memory); with
`check_numerics`, one device reduction per checked tensor and one read per pass. The
histograms, layout, normalization and PNG encoding run on the writer's thread
(summarylib.integrations.watch_views).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np
import torch

from summarylib.checks import input_error
from summarylib.integrations.torch.watch_device import DeviceViews
from summarylib.integrations.torch.watch_numerics import NonFinite, NumericsCheck
from summarylib.integrations.watch_arguments import WatchArguments, watch_arguments
from summarylib.integrations.watch_views import KINDS, KindViews
from summarylib.ops.scalar import encoding as scalar_encoding
from summarylib.ops.text import encoding as text_encoding
from summarylib.writer.queue import queue_summary, recording_writer
from summarylib.writer.summary_writer import SummaryWriter

_OP = "integrations.torch.watch"


def _first_tensor(output: Any) -> torch.Tensor | None:
    """A module's output tensor: the output, or the first tensor of a tuple or list."""
    if isinstance(output, torch.Tensor):
        return output
    if isinstance(output, (tuple, list)):
        return next((item for item in output if isinstance(item, torch.Tensor)), None)
    return None


def _cpu_snapshot(tensors: Sequence[torch.Tensor], out: np.ndarray) -> None:
    """CPU tensors flattened into `out` (float32, of their total size)."""
    # numpy's copy: one thread, where torch.cat would wake its intra-op threads, which
    # then spin against the writer's threads for the cores.
    np.concatenate([t.reshape(-1).to(torch.float32).numpy(force=True) for t in tensors], out=out)


def _device_snapshot(tensors: Sequence[torch.Tensor]) -> tuple[np.ndarray, Callable[[], Any] | None]:
    """Tensors not all on the CPU flattened into one new float32 numpy buffer, and what
    the writer's thread must call before reading it (the wait for a device-to-host copy),
    or None."""
    device = tensors[0].device
    flat = torch.cat([t.detach().reshape(-1).to(device, torch.float32) for t in tensors])
    host = torch.empty(flat.numel(), dtype=torch.float32, pin_memory=device.type == "cuda")
    host.copy_(flat, non_blocking=True)
    if device.type != "cuda":
        return host.numpy(), None
    done = torch.cuda.Event()
    done.record()
    return host.numpy(), done.synchronize


class Watch:
    """The hooks of one `watch(...)` call; `.remove()` takes them all off (also on leaving
    a `with` block). `step` is the next step's number; `nonfinite` the last NaN/Inf found."""

    def __init__(
        self,
        model: torch.nn.Module,
        arguments: WatchArguments,
        writer: SummaryWriter | None,
        optimizer: torch.optim.Optimizer | None,
        step: Callable[[], int] | None,
    ) -> None:
        self._model = model
        self._log_freq = arguments.log_freq
        self._writer = writer
        self._step_of = step
        self._raise = arguments.raise_on_nonfinite
        self._live, self._views = arguments.views(arguments.kinds, self._target)
        self._device_views = {
            kind: DeviceViews(views, arguments.variance_steps) for kind, views in self._views.items()
        }
        self._numerics = NumericsCheck() if arguments.check_numerics else None
        self._parameters = [(name, p) for name, p in model.named_parameters()]
        self._count = 0  # steps completed
        self._logging = True  # whether the step in progress is logged
        self._backward_task = -1
        self._reported_step: int | None = None
        self._activations: dict[str, torch.Tensor] = {}
        self.nonfinite: NonFinite | None = None
        self._handles: list[Any] = []
        self._leaves: list[tuple[str, torch.nn.Module]] = []  # watched for activations
        self._activation_handles: list[Any] = []  # on the leaves during logged steps only
        self._unset_grad_hooks: list[torch.Tensor] = []
        self._install(optimizer, arguments.kinds)

    # -- hooks --------------------------------------------------------------------------

    def _install(self, optimizer: torch.optim.Optimizer | None, kinds: tuple[str, ...]) -> None:
        if "activations" in kinds:
            modules = self._model.named_modules()
            self._leaves = [(path, m) for path, m in modules if not any(True for _ in m.children())]
        self._plan_step()
        if self._numerics is not None:
            for path, module in self._model.named_modules():
                self._handles.append(module.register_forward_hook(self._output_check(self._numerics, path)))
            self._handles.append(self._model.register_forward_hook(self._end_forward))
        # Gradient hooks check gradients, and without an optimizer find the end of a step.
        hooked = self._numerics is not None or optimizer is None
        module_of = {id(p): path for path, m in self._model.named_modules() for p in m.parameters(False)}
        for name, parameter in self._parameters:
            if hooked and parameter.requires_grad:
                if parameter._post_accumulate_grad_hooks is None:
                    self._unset_grad_hooks.append(parameter)
                hook = self._gradient_hook(module_of.get(id(parameter), ""), name.rsplit(".", 1)[-1])
                self._handles.append(parameter.register_post_accumulate_grad_hook(hook))
        if optimizer is not None:
            self._handles.append(optimizer.register_step_pre_hook(lambda *_: self._end_step()))
        self._after_backward = self._end_step if optimizer is None else None

    def _plan_step(self) -> None:
        """Whether the step beginning now is logged (its count a multiple of `log_freq`,
        or, live, of the interval a dashboard asks for), and the activation hooks for it."""
        live = self._live
        if live is None:
            self._logging = self._count % self._log_freq == 0
            self._hook_activations(self._logging)
        else:
            self._logging = live.logged(self._count)
            self._hook_activations(self._logging and live.wants_activations)

    def _hook_activations(self, wanted: bool) -> None:
        """Put the activation hooks on the leaf modules for a logged step, take them off for
        the others: a forward hook costs every call of its module, logged or not."""
        if wanted and not self._activation_handles:
            self._activation_handles = [
                module.register_forward_hook(self._activation_hook(path)) for path, module in self._leaves
            ]
        elif not wanted:
            for handle in self._activation_handles:
                handle.remove()
            self._activation_handles = []

    def _activation_hook(self, path: str) -> Callable[..., None]:
        def hook(module: torch.nn.Module, inputs: Any, output: Any) -> None:
            tensor = _first_tensor(output)
            if tensor is not None and (tensor.is_floating_point() or tensor.dtype == torch.bool):
                # A copy: an in-place op after this module must not change it.
                self._activations[path or "output"] = tensor.detach().reshape(-1).to(torch.float32, copy=True)

        return hook

    def _output_check(self, numerics: NumericsCheck, path: str) -> Callable[..., None]:
        def hook(module: torch.nn.Module, inputs: Any, output: Any) -> None:
            numerics.check(path, "output", _first_tensor(output))

        return hook

    def _end_forward(self, module: torch.nn.Module, inputs: Any, output: Any) -> None:
        if self._numerics is not None:
            self._report(self._numerics.end_pass(self.current_step))

    def _gradient_hook(self, path: str, name: str) -> Callable[[torch.Tensor], None]:
        def hook(parameter: torch.Tensor) -> None:
            if self._numerics is not None:
                self._numerics.check(path, f"gradient of {name}", parameter.grad)
            # One end-of-backward callback per backward pass (graph task), also after a
            # backward pass that failed before its callback ran.
            task = torch._C._current_graph_task_id()
            if task != self._backward_task:
                self._backward_task = task
                torch.autograd.Variable._execution_engine.queue_callback(self._end_backward)

        return hook

    def _end_backward(self) -> None:
        try:
            if self._numerics is not None:
                self._report(self._numerics.end_pass(self.current_step))
        finally:  # the step ends also when the check raises
            if self._after_backward is not None:
                self._after_backward()

    # -- steps and writing --------------------------------------------------------------

    @property
    def step(self) -> int:
        """The number of steps completed (the default step number of the one in progress)."""
        return self._count

    def current_step(self) -> int:
        """The step number written for the step in progress."""
        return self._count if self._step_of is None else int(self._step_of())

    def _target(self) -> SummaryWriter | None:
        return self._writer if self._writer is not None else recording_writer()

    def _end_step(self) -> None:
        if self._logging:
            live = self._live
            writer = self._target() if live is None else live.writer()
            if writer is not None:
                views = self._views if live is None else live.views
                # Live views carry the step's time: the dashboard's latency is measured from it.
                wall_time = None if live is None else time.time()
                self._write_views(writer, self.current_step(), views, wall_time)
        self._activations = {}
        self._count += 1
        self._plan_step()

    def _write_views(
        self, writer: SummaryWriter, step: int, views_of: dict[str, KindViews], wall_time: float | None
    ) -> None:
        tensors: dict[str, Iterable[tuple[str, torch.Tensor]]] = {
            "parameters": self._parameters,
            "gradients": [(name, p.grad) for name, p in self._parameters if p.grad is not None],
            "activations": self._activations.items(),
        }
        for kind, views in views_of.items():
            named = [(name, t) for name, t in tensors[kind] if t.numel()]
            if not named:
                continue
            grid = views.layout_of([n for n, _ in named], [tuple(t.shape) for _, t in named])
            snapshotted = [t for _, t in named]
            device = self._device_views.get(kind)  # histograms on the GPU: not for live views
            if all(t.device.type == "cpu" for t in snapshotted):
                values, slot = views.buffer(writer, grid.total)
                _cpu_snapshot(snapshotted, values)
                views.queue(writer, step, grid, values, None, slot, wall_time)
            elif device is not None and all(
                t.device == snapshotted[0].device and t.device.type == "cuda" for t in snapshotted
            ):
                device.queue(writer, step, grid, snapshotted)
            else:
                views.queue(writer, step, grid, *_device_snapshot(snapshotted), wall_time=wall_time)

    def _report(self, found: NonFinite | None) -> None:
        if found is None or self._reported_step == found.step:
            return
        self._reported_step = found.step
        self.nonfinite = found
        message = found.message()
        writer = self._target()
        if writer is not None:
            tag = "numerics/first_nonfinite"
            queue_summary(
                writer, "watch", tag, found.step, text_encoding.summary, (tag, (), [message.encode()], None)
            )
            writer.submit(
                scalar_encoding.scalar_event,
                ("numerics/nonfinite_tensors", float(found.tensors), None),
                time.time(),
                found.step,
            )
        if self._raise:
            raise FloatingPointError(f"summarylib watch: {message}")

    # -- removal ------------------------------------------------------------------------

    def remove(self) -> None:
        """Take every hook off; the model is left as it was before `watch`. Idempotent."""
        for handle in self._handles:
            handle.remove()
        self._handles = []
        self._hook_activations(False)
        self._leaves = []
        for parameter in self._unset_grad_hooks:
            if not parameter._post_accumulate_grad_hooks:
                parameter._post_accumulate_grad_hooks = None  # type: ignore[assignment]  # as before watch
        self._unset_grad_hooks = []
        self._activations = {}
        if self._live is not None:
            self._live.close()

    def __enter__(self) -> Watch:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.remove()


def watch(
    model: torch.nn.Module,
    log: str | Sequence[str] | None = "gradients",
    log_freq: int = 100,
    images: bool = False,
    check_numerics: bool = False,
    writer: SummaryWriter | None = None,
    *,
    optimizer: torch.optim.Optimizer | None = None,
    step: Callable[[], int] | None = None,
    raise_on_nonfinite: bool = True,
    variance_steps: int = 10,
    buckets: int | None = None,
    live: bool = False,
    retain_seconds: float = 600,
) -> Watch:
    """Watch `model` while it trains: histograms (and grid images) of its parameters,
    gradients and activations every `log_freq` steps, and the first NaN/Inf, with hooks
    only (the model's code is not changed; `.remove()` restores it exactly).

    A step is one backward pass through the model, or, with `optimizer`, one
    `optimizer.step()` (so gradient accumulation over several backward passes is one
    step). Steps are counted from 0 and logged when the count is a multiple of
    `log_freq`; the step number written is the count, or `step()` if a callable is given
    (e.g. `lambda: trainer.global_step`). Summaries go to `writer`, or else to
    summarylib's default writer at the time (nothing is written without one, or when
    `record_if` says not to). Views are taken at the end of the step: parameters as they
    are before the optimizer updates them, gradients as accumulated.

    `log`: "gradients", "parameters", "activations", "all", a list of them, or None for
    no views (with `check_numerics`, only the check). Tags:
    `parameters/<name>` and `gradients/<name>` (names from `named_parameters()`, e.g.
    `encoder.0.weight`), `activations/<module path>` for each leaf module's output (the
    first tensor of a tuple; the last call of the step if a module runs several times;
    `activations/output` for a model that is one leaf).

    `images=True`: also one gray image a kind a logged step, `images/<kind>`: every
    tensor a band of a near-square grid, each band normalized on its own (see
    summarylib.ops.tensor_grid; the description lists the bands), and
    `images/parameters_variance`, the per-element variance of the parameters over each
    `variance_steps` consecutive logged steps in the same layout, written at the last of
    them (which weights still move; 0 or 1 turns it off).

    `check_numerics=True`: the output of every module (in the order they finish) and
    every parameter's gradient (in the order backward accumulates them) is checked for
    NaN and ±Inf with one device reduction each, read once per forward pass of the model
    and once per backward pass (see watch_numerics). The first non-finite tensor of a
    step writes `numerics/first_nonfinite` (text: step, module, tensor kind, shape, NaN,
    +Inf and -Inf counts) and `numerics/nonfinite_tensors` (scalar: how many checked
    tensors of that pass held NaN or Inf), then raises `FloatingPointError` with the
    same message from the forward call or `backward()`, unless `raise_on_nonfinite=False`.

    `live=True`: the views are the ones the Live dashboard asks for (see
    summarylib.integrations.watch_live), of the kinds in `log`, and "variance" with
    "parameters": no histograms, and while nobody looks no views at all (the numerics
    check, if on, goes on). They go, as grid images at the asked interval, to rolling
    files in `<run>/live` that keep the last `retain_seconds`, the run being the logdir
    of the watch's writer; `images` must stay False (the dashboard asks for images).
    """
    if not isinstance(model, torch.nn.Module):
        raise input_error(
            TypeError, _OP, None, "model", f"expected a torch.nn.Module, got {type(model).__name__}"
        )
    arguments = watch_arguments(
        _OP,
        log,
        KINDS,
        None,
        log_freq=log_freq,
        images=images,
        check_numerics=check_numerics,
        writer=writer,
        raise_on_nonfinite=raise_on_nonfinite,
        variance_steps=variance_steps,
        buckets=buckets,
        live=live,
        retain_seconds=retain_seconds,
    )
    if step is not None and not callable(step):
        raise input_error(
            TypeError, _OP, None, "step", f"expected a callable returning an int, got {type(step).__name__}"
        )
    return Watch(model, arguments, writer, optimizer, step)
