"""Write a small run with every op and dashboard summarylib has, then say how to look at it.

python -m summarylib.demo --logdir runs/demo
"""

from __future__ import annotations

import argparse
import math
import os
import sys

import numpy as np

import summarylib as sl
from summarylib import hparams as hp
from summarylib.ops.tensor_grid import grid_image
from summarylib.reader import iter_events

__all__ = ["main", "write_demo_run"]

HP_LR = hp.HParam("learning_rate", hp.RealInterval(1e-4, 1e-2), display_name="learning rate")
HP_OPTIMIZER = hp.HParam("optimizer", hp.Discrete(["adam", "sgd"]))
# The main run and two shorter runs of a made-up sweep, each a session of the HParams dashboard.
SWEEP = {".": (1e-3, "adam"), "sweep/lr=0.003": (3e-3, "adam"), "sweep/sgd": (1e-3, "sgd")}


def _samples(step: int, rng: np.random.Generator) -> np.ndarray:
    """Four 64x64 RGB pictures that sharpen as training goes on."""
    y, x = np.mgrid[0:64, 0:64] / 64.0
    noise = rng.normal(0, 1.0 / (1 + step / 10), size=(4, 64, 64, 3))
    base = np.stack([x, y, 1 - x], axis=-1)[np.newaxis]
    return np.clip(base + 0.3 * noise, 0, 1).astype(np.float32)


def _tone(step: int, sample_rate: int = 16_000) -> np.ndarray:
    """Half a second of a tone whose pitch rises with the step."""
    t = np.arange(sample_rate // 2) / sample_rate
    return (0.5 * np.sin(2 * np.pi * (220 + 5 * step) * t)).astype(np.float32)


def _model_graph() -> sl.GraphDef:
    """The made-up model's graph, one box per layer, edges labelled with shapes."""

    def node(name: str, op: str, inputs: list[str], shape: list[int]) -> sl.NodeDef:
        made = sl.NodeDef(name=name, op=op, input=inputs)
        dims = made.attr["_output_shapes"].list.shape.add().dim
        for size in shape:
            dims.add(size=size)
        return made

    return sl.GraphDef(
        node=[
            node("input", "Placeholder", [], [-1, 784]),
            node("layer1/weights", "VariableV2", [], [784, 128]),
            node("layer1/MatMul", "MatMul", ["input", "layer1/weights"], [-1, 128]),
            node("layer1/Relu", "Relu", ["layer1/MatMul"], [-1, 128]),
            node("layer2/weights", "VariableV2", [], [128, 10]),
            node("layer2/MatMul", "MatMul", ["layer1/Relu", "layer2/weights"], [-1, 10]),
            node("loss/Softmax", "Softmax", ["layer2/MatMul"], [-1, 10]),
        ]
    )


def _write_dashboards(rng: np.random.Generator) -> None:
    """What the dashboards beyond the core six show, once per run: the graph, a custom
    scalars layout, an embedding for the projector and a mesh."""
    sl.graph(_model_graph())
    sl.custom_scalars(
        {"training": {"loss and learning rate": ["Multiline", ["train/loss", "train/learning_rate"]]}}
    )
    centers = rng.normal(0, 3, size=(3, 16))
    classes = rng.integers(0, 3, size=300)
    points = centers[classes] + rng.normal(0, 1, size=(300, 16))
    colors = np.array([[1.0, 0.2, 0.2], [0.2, 0.8, 0.2], [0.2, 0.3, 1.0]])[classes]
    sl.embedding(
        "features",
        points,
        metadata=[[f"point {i}", f"class {c}"] for i, c in enumerate(classes)],
        metadata_header=["name", "class"],
        label_images=np.broadcast_to(colors[:, np.newaxis, np.newaxis, :], (300, 8, 8, 3)),
    )
    sl.mesh(
        "tetrahedron",
        [[[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]]],
        faces=[[[0, 1, 2], [0, 1, 3], [0, 2, 3], [1, 2, 3]]],
        colors=[[[255, 0, 0], [0, 255, 0], [0, 0, 255], [255, 255, 0]]],
    )


def _log_step(
    step: int, steps: int, learning_rate: float, rng: np.random.Generator, labels: np.ndarray
) -> None:
    loss = 2.0 * math.exp(-step * learning_rate / 0.03) + 0.05 * math.sin(step)
    sl.scalar("train/loss", loss, description="Cross-entropy on the training batch.")
    sl.scalar("train/learning_rate", learning_rate * 0.97**step)
    sl.histogram("layer1/weights", rng.normal(0, 1 + step / 50, size=5000))
    if step % 10 == 0:
        sl.image("samples", _samples(step, rng), max_outputs=4)
        sl.audio("tone", _tone(step), sample_rate=16_000)
        skill = step / steps
        predictions = np.clip(labels * skill + rng.uniform(0, 1, size=labels.size) * (1 - skill), 0, 1)
        sl.pr_curve("eval/pr", labels, predictions)
        sl.text("eval/table", [["step", str(step)], ["loss", f"{loss:.3f}"]])
        _log_parameter_image(step, rng)


def _log_parameter_image(step: int, rng: np.random.Generator) -> None:
    """The made-up model's weights as `watch(images=True)` shows a real model's: every
    tensor a band of one gray image, normalized on its own, named in the description."""
    weights = {
        "layer1/kernel": rng.normal(0, 1 + step / 50, (100, 50)),
        "layer1/bias": rng.normal(0, 0.1, 100),
        "layer2/kernel": rng.normal(0, 0.3, (10, 100)),
    }
    image, description = grid_image(weights)
    sl.image("watch/parameters", image, description=description)


def write_demo_run(logdir: str, steps: int = 100) -> str:
    """Log a made-up training run with every op into `logdir` (and two shorter runs of a
    sweep beside it, for the HParams dashboard); returns the main run's event file."""
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 2, size=2000).astype(bool)
    paths: dict[str, str] = {}
    for run, (learning_rate, optimizer) in SWEEP.items():
        run_steps = steps if run == "." else max(1, steps // 4)
        run_dir = logdir if run == "." else os.path.join(logdir, run)
        with sl.create_file_writer(run_dir) as writer, writer.as_default(step=0):
            if run == ".":
                hp.hparams_config([HP_LR, HP_OPTIMIZER], [hp.Metric("train/loss", display_name="loss")])
                sl.text("about", "A **summarylib demo**: a made-up training run with every op.")
                _write_dashboards(rng)
            hp.hparams({HP_LR: learning_rate, HP_OPTIMIZER: optimizer})
            for step in range(run_steps):
                sl.set_step(step)
                _log_step(step, run_steps, learning_rate, rng, labels)
            hp.session_end("success")
            path = writer.path
            assert path is not None, "the writer has written the run's events"
            paths[run] = path
    return paths["."]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m summarylib.demo", description=__doc__.splitlines()[0])
    parser.add_argument("--logdir", default=os.path.join("runs", "demo"), help="where to write the run")
    parser.add_argument("--steps", type=int, default=100, help="training steps to simulate")
    args = parser.parse_args(argv)
    path = write_demo_run(args.logdir, args.steps)
    tags: dict[str, int] = {}
    for event in iter_events(path):
        for value in event.summary.value:
            tags[value.tag] = tags.get(value.tag, 0) + 1
        if event.graph_def:
            tags["(graph)"] = tags.get("(graph)", 0) + 1
    print(f"wrote {path}")
    for tag, count in sorted(tags.items()):
        print(f"  {tag}: {count} events")
    # TensorBoard from this environment: its Live tab is summarylib's plugin, found only here.
    bin_dir = os.path.dirname(sys.executable)
    print("\nto look at it, with TensorBoard installed beside summarylib:")
    print(f"  {os.path.join(bin_dir, 'pip')} install tensorboard")
    print(f"  {os.path.join(bin_dir, 'tensorboard')} --logdir {args.logdir}")
    print("then open http://localhost:6006 (the Live tab: http://localhost:6006/#summarylib_live)")


if __name__ == "__main__":
    main()
