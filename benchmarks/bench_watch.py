"""The cost of watching a 1,000,000-parameter MLP train on the CPU, side by side in one run.

    python benchmarks/bench_watch.py [--quick] [--steps N] [--logged-steps L] [--repeats R] [--threads T]

An MLP 784-1000-210-20 (999,430 parameters), batch 64, SGD, trained for N steps (L for
the log_freq=1 row, whose steps are all logged; the others need many steps for a logged
step at log_freq=100 to count as it does over a run):

- without watch (the anchor);
- `watch(model, log="all", log_freq=1, images=True)`: histograms of every parameter,
  gradient and activation and three gray images a step (one per kind, two of them
  1000x1000), and every 10th step the parameters' variance image; the time per step
  includes the writer's close, so it is what can be sustained, and logged steps per
  second are printed beside it;
- the same at `log_freq=100`;
- each of these two with the views made by the worker process (the default for a model
  this size) and on the writer's thread (`SUMMARYLIB_WATCH_WORKER=off`, as before);
- the peer: tensorboardX's `add_histogram` of every parameter and gradient every 100
  steps (what a training loop does without a watch; no images);
- `check_numerics=True` alone, against `torch.autograd.set_detect_anomaly(True)`.

The two goal rows of issue 21 are printed last (through common.goal). `--quick` runs
fewer steps and repetitions (under about 40 s).

Each row is the best of R repetitions, the rows taking turns; "added" is the row's time
per step minus the anchor's, relative to the anchor. Every row's first step (each watch
logs it) and setup are left out: what starts once a run (a writer, the view worker's
interpreter, about 0.3 s of CPU) is no cost per step of a long run, and in a run of a few
thousand steps it would be most of what is measured. With `retain_seconds` available on the writer, the
log_freq=1 row writes with `retain_seconds=60`, as a live view would.

Training runs on one torch thread by default (`--threads 0` for torch's choice), as issue
32's goal row is set: on a 2-core machine torch's second thread spins on the core the
writer and the view worker need, and any other thread then costs training its second
core, so the rows move by a fifth from run to run (`check_numerics` alone measured +20%).
"""

from __future__ import annotations

import argparse
import inspect
import math
import os
import sys
import tempfile
import time
from collections.abc import Callable

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import available, goal

import summarylib as sl
from summarylib.integrations import watch_remote
from summarylib.integrations.torch import watch
from summarylib.integrations.watch_views import KindViews


def make_model() -> torch.nn.Module:
    torch.manual_seed(0)
    return torch.nn.Sequential(
        torch.nn.Linear(784, 1000),
        torch.nn.ReLU(),
        torch.nn.Linear(1000, 210),
        torch.nn.ReLU(),
        torch.nn.Linear(210, 20),
    )


# What a contender's setup returns: `settle()`, run after the first step (the writer's
# flush: its views written, a view worker started), and `teardown()`, the writer's close.
Hooks = tuple[Callable[[], None], Callable[[], None]]


def train_seconds(steps: int, setup: Callable[[torch.nn.Module, str], Hooks] | None) -> float:
    """Seconds per step of `steps` SGD steps after a first one, the teardown (the writer's
    close) included. The first step, logged by every watch and peer, is left out with the
    setup: what starts once a run (the writer, the view worker's interpreter) is not a
    cost per step of a run of thousands."""
    model = make_model()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    x, y = torch.randn(64, 784), torch.randint(0, 20, (64,))

    def step() -> None:
        loss = torch.nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

    with tempfile.TemporaryDirectory() as logdir:
        settle, teardown = setup(model, logdir) if setup else (_nothing, _nothing)
        step()
        settle()
        start = time.perf_counter()
        for _ in range(steps):
            step()
        teardown()
        return (time.perf_counter() - start) / steps


def _nothing() -> None:
    pass


def watching(worker: str = "auto", **options: object) -> Callable[[torch.nn.Module, str], Hooks]:
    """A watch with these options, its views made as `worker` says (SUMMARYLIB_WATCH_WORKER)."""

    def setup(model: torch.nn.Module, logdir: str) -> Hooks:
        os.environ[watch_remote.MODE_VARIABLE] = worker
        extra = {}
        if (
            options.get("log_freq") == 1
            and "retain_seconds" in inspect.signature(sl.create_file_writer).parameters
        ):
            extra["retain_seconds"] = 60
        writer = sl.create_file_writer(logdir, **extra)
        handle = watch(model, writer=writer, **options)

        def teardown() -> None:
            handle.remove()
            writer.close()
            del os.environ[watch_remote.MODE_VARIABLE]

        return writer.flush, teardown

    return setup


def tensorboardx_histograms(model: torch.nn.Module, logdir: str) -> Hooks:
    """The peer: tensorboardX's add_histogram of every parameter and gradient every 100
    steps, from a hook at the start of each forward pass (the previous step's gradients)."""
    import tensorboardX

    writer = tensorboardX.SummaryWriter(logdir)
    steps = iter(range(1 << 62))

    def log(module: torch.nn.Module, inputs: object) -> None:
        step = next(steps)
        if step % 100 == 0:
            for name, parameter in model.named_parameters():
                writer.add_histogram(f"parameters/{name}", parameter.detach(), step)
                if parameter.grad is not None:
                    writer.add_histogram(f"gradients/{name}", parameter.grad, step)

    handle = model.register_forward_pre_hook(log)

    def teardown() -> None:
        handle.remove()
        writer.close()

    return writer.flush, teardown


def anomaly_mode(model: torch.nn.Module, logdir: str) -> Hooks:
    torch.autograd.set_detect_anomaly(True)
    return _nothing, lambda: torch.autograd.set_detect_anomaly(False)


def writer_thread_ms(repeats: int, steps: int = 20) -> dict[str, float]:
    """Milliseconds the writer's thread spends on one logged step of each kind (histograms,
    grid image, and for parameters the variance image of each window), measured alone
    over the tensors of `steps` real training steps: what bounds the logged steps per
    second a watch can sustain, whatever the training costs."""
    model = make_model()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    x, y = torch.randn(64, 784), torch.randint(0, 20, (64,))
    outputs: list[torch.Tensor] = []
    for layer in model:
        layer.register_forward_hook(lambda module, inputs, output: outputs.append(output.detach().clone()))
    recorded = []
    for _ in range(steps):
        outputs.clear()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        recorded.append(
            {
                "parameters": {n: p.detach().clone() for n, p in model.named_parameters()},
                "gradients": {n: p.grad.clone() for n, p in model.named_parameters()},
                "activations": {str(i): output for i, output in enumerate(outputs)},
            }
        )
        optimizer.step()
    result = {}
    for kind in recorded[0]:
        views = KindViews(kind, images=True, variance_steps=10, buckets=None)
        grid = views.layout_of(list(recorded[0][kind]), [tuple(t.shape) for t in recorded[0][kind].values()])
        flat = [torch.cat([t.reshape(-1) for t in step[kind].values()]).numpy() for step in recorded]
        best = math.inf
        for _ in range(repeats):
            start = time.perf_counter()
            for values in flat:
                views.summary(grid, None, values)
            best = min(best, (time.perf_counter() - start) / len(flat))
        result[kind] = best * 1e3
    return result


EVERY_STEP = 'watch(log="all", log_freq=1, images=True)'
EVERY_100 = 'watch(log="all", log_freq=100, images=True)'
THREADS = " (views on the writer's thread)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer steps and repeats (under ~40 s)")
    parser.add_argument("--steps", type=int, default=1500)
    parser.add_argument("--logged-steps", type=int, default=300, help="steps of the log_freq=1 rows")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--threads", type=int, default=1, help="torch threads (0: torch's choice)")
    args = parser.parse_args()
    if args.quick:
        args.steps, args.logged_steps, args.repeats = 600, 150, 1
    if args.threads:
        torch.set_num_threads(args.threads)
    contenders: dict[str, Callable[[torch.nn.Module, str], Hooks] | None] = {
        "no watch": None,
        EVERY_STEP: watching(log="all", log_freq=1, images=True),
        EVERY_STEP + THREADS: watching("off", log="all", log_freq=1, images=True),
        EVERY_100: watching(log="all", log_freq=100, images=True),
        EVERY_100 + THREADS: watching("off", log="all", log_freq=100, images=True),
    }
    if available("tensorboardX"):
        contenders["tensorboardX add_histogram of parameters and gradients, every 100 steps"] = (
            tensorboardx_histograms
        )
    if not args.quick:
        contenders["watch(log=None, check_numerics=True)"] = watching(log=None, check_numerics=True)
        contenders["torch.autograd.set_detect_anomaly(True)"] = anomaly_mode
    train_seconds(20, None)  # warm up
    rows = dict.fromkeys(contenders, math.inf)
    for _ in range(args.repeats):  # rows interleaved, so a slow spell of the machine hits all
        for name, setup in contenders.items():
            steps = args.logged_steps if name.startswith(EVERY_STEP) else args.steps
            rows[name] = min(rows[name], train_seconds(steps, setup))
    base = rows["no watch"]
    parameters = sum(p.numel() for p in make_model().parameters())
    print(
        f"\nwatch on a {parameters:,}-parameter MLP, CPU, {torch.get_num_threads()} torch threads, batch 64"
    )
    print(
        f"({args.steps} steps, {args.logged_steps} at log_freq=1, best of {args.repeats}, "
        "writer close included)\n"
    )
    print("| training with | ms/step | added ms/step | added | steps/s |")
    print("|---|---:|---:|---:|---:|")
    for name, seconds in rows.items():
        added = seconds - base
        print(
            f"| {name} | {seconds * 1e3:.2f} | {added * 1e3:.2f} | {added / base:+.0%} | {1 / seconds:.0f} |"
        )
    costs = writer_thread_ms(args.repeats, 5 if args.quick else 20)
    print("\nviews per logged step (histograms, image, variance image per window), measured alone:")
    print(", ".join(f"{kind} {ms:.1f} ms" for kind, ms in costs.items()), end="")
    print(f"; at most {1e3 / sum(costs.values()):.0f} logged steps/s on one core")
    if "watch(log=None, check_numerics=True)" in rows:
        numerics = rows["watch(log=None, check_numerics=True)"] - base
        anomaly = rows["torch.autograd.set_detect_anomaly(True)"] - base
        if numerics > 0:
            print(f"\ncheck_numerics adds {anomaly / numerics:.1f}x less time per step than detect_anomaly")
    print()
    views_ms, threads = sum(costs.values()), torch.get_num_threads()
    added = rows[EVERY_100] / base - 1
    # With every core busy training, the views' CPU is taken from training's: the least added.
    floor = views_ms / (100 * base * 1e3 * threads)
    measured = (
        f"{added:+.1%} per step (the views: {views_ms:.1f} ms of CPU a logged step, "
        f"{floor:.1%} of 100 steps' CPU on {threads} busy core(s))"
    )
    goal(f"{EVERY_100}, 1M-parameter MLP on CPU", measured, "<= +3%", added <= 0.03)
    logged = 1 / rows[EVERY_STEP]
    measured = f"{logged:.0f} logged steps/s (the views: at most {1e3 / views_ms:.0f} a second on one core)"
    goal(f"{EVERY_STEP}, logged steps/s", measured, ">= 60", logged >= 60)


if __name__ == "__main__":
    main()
