"""`summarylib.integrations.torch.watch`: small real models trained with each option, read
back through TensorBoard's own data access."""

from __future__ import annotations

import io
import math
import os
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("torch", reason="torch is not installed (the frameworks extra)")

import torch
from PIL import Image
from tensorboard import context as tb_context

import summarylib as sl
from summarylib.integrations.torch import watch
from summarylib.ops import tensor_grid
from summarylib.reader import iter_values
from tests.tensorboard_data import provider_for, read_blob_sequences, read_scalars, read_tensors

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def mlp() -> torch.nn.Module:
    return torch.nn.Sequential(
        torch.nn.Linear(8, 16),
        torch.nn.ReLU(),
        torch.nn.Linear(16, 16),
        torch.nn.Tanh(),
        torch.nn.Linear(16, 2),
    )


def cnn() -> torch.nn.Module:
    return torch.nn.Sequential(
        torch.nn.Conv2d(1, 4, 3),
        torch.nn.BatchNorm2d(4),
        torch.nn.ReLU(inplace=True),
        torch.nn.MaxPool2d(2),
        torch.nn.Flatten(),
        torch.nn.Linear(4 * 3 * 3, 2),
    )


class Block(torch.nn.Module):
    """A transformer block with a head, as small as it gets."""

    def __init__(self) -> None:
        super().__init__()
        self.layer = torch.nn.TransformerEncoderLayer(
            d_model=8, nhead=2, dim_feedforward=16, batch_first=True
        )
        self.head = torch.nn.Linear(8, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.layer(x).mean(dim=1))


INPUTS = {"mlp": (mlp, (4, 8)), "cnn": (cnn, (4, 1, 8, 8)), "transformer": (Block, (4, 5, 8))}


def train(model: torch.nn.Module, shape: tuple[int, ...], steps: int, optimizer=None) -> list[dict]:
    """`steps` SGD steps on random data; the parameters as they were at each step's backward."""
    torch.manual_seed(1)
    optimizer = optimizer or torch.optim.SGD(model.parameters(), lr=0.05)
    seen = []
    for _ in range(steps):
        loss = model(torch.randn(shape)).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        seen.append({name: p.detach().clone().numpy() for name, p in model.named_parameters()})
        optimizer.step()
    return seen


def leaf_paths(model: torch.nn.Module) -> set[str]:
    return {path for path, m in model.named_modules() if not list(m.children())}


@pytest.mark.parametrize("name", sorted(INPUTS))
def test_every_tag_of_a_real_model_reads_back(logdir, name):
    make, shape = INPUTS[name]
    torch.manual_seed(0)
    model = make()
    with (
        sl.create_file_writer(logdir) as writer,
        watch(
            model, log="all", log_freq=2, images=True, check_numerics=True, writer=writer, variance_steps=2
        ),
    ):
        train(model, shape, 5)
    histograms = read_tensors(logdir, "histograms")["."]
    names = [n for n, _ in model.named_parameters()]
    for kind in ("parameters", "gradients"):
        for parameter in names:
            assert [step for step, _ in histograms[f"{kind}/{parameter}"]] == [0, 2, 4]
    activations = {tag.split("/", 1)[1] for tag in histograms if tag.startswith("activations/")}
    assert activations and activations <= leaf_paths(model)
    images = read_blob_sequences(logdir, "images")["."]
    assert {tag for tag in images if tag.endswith("_variance")} == {"images/parameters_variance"}
    for kind in ("parameters", "gradients", "activations"):
        assert [step for step, _ in images[f"images/{kind}"]] == [0, 2, 4]
    # One variance image per window of variance_steps=2 logged steps, at its last.
    assert [step for step, _ in images["images/parameters_variance"]] == [2]
    for tag in images:
        assert Image.open(io.BytesIO(images[tag][0][1][2])).mode == "L"
    # No NaN: nothing under numerics/.
    assert not any(tag.startswith("numerics/") for tags in read_scalars(logdir).values() for tag in tags)


def test_parameter_image_bands_are_the_normalized_tensors(logdir):
    torch.manual_seed(0)
    model = mlp()
    with (
        sl.create_file_writer(logdir) as writer,
        watch(model, log="parameters", log_freq=1, images=True, writer=writer),
    ):
        seen = train(model, (4, 8), 3)
    names = [n for n, _ in model.named_parameters()]
    grid = tensor_grid.layout(names, [tuple(p.shape) for p in model.parameters()])
    assert grid.width == math.isqrt(sum(p.numel() for p in model.parameters()) - 1) + 1
    provider = provider_for(logdir)
    sequences = provider.list_blob_sequences(
        tb_context.RequestContext(), experiment_id="", plugin_name="images"
    )
    description = sequences["."]["images/parameters"].description
    for name in names:
        assert f"| {name} |" in description
    for step, blobs in read_blob_sequences(logdir, "images")["."]["images/parameters"]:
        pixels = np.asarray(Image.open(io.BytesIO(blobs[2])))
        assert pixels.shape == (grid.height, grid.width)
        flat = pixels.reshape(-1)
        for name, row, size, count in zip(grid.names, grid.rows, grid.sizes, grid.band_rows, strict=True):
            band = flat[row * grid.width : row * grid.width + size]
            expected = tensor_grid.normalized(seen[step][name].reshape(-1))
            np.testing.assert_allclose((band - 1) / 254, expected, atol=0.51 / 254 + 1e-6)
            padding = flat[row * grid.width + size : (row + count) * grid.width]
            assert not padding.any()
            if row + count < grid.height:  # the separator row
                assert not pixels[row + count].any()


def hooks_of(model: torch.nn.Module, optimizer: torch.optim.Optimizer) -> list:
    """Every hook registry a watch could touch, copied."""
    registries = []
    for module in model.modules():
        for attribute in (
            "_forward_hooks",
            "_forward_pre_hooks",
            "_forward_hooks_with_kwargs",
            "_forward_hooks_always_called",
            "_backward_hooks",
            "_backward_pre_hooks",
        ):
            registries.append(dict(getattr(module, attribute)))
    for parameter in model.parameters():
        hooks = parameter._post_accumulate_grad_hooks
        registries.append(None if hooks is None else dict(hooks))
        registries.append(None if parameter._backward_hooks is None else dict(parameter._backward_hooks))
    registries.append(dict(optimizer._optimizer_step_pre_hooks))
    return registries


def test_remove_restores_every_hook_exactly(logdir):
    model = cnn()
    model[0].register_forward_hook(lambda *args: None)  # a user's own hook stays
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    before = hooks_of(model, optimizer)
    with sl.create_file_writer(logdir) as writer:
        handle = watch(
            model, log="all", log_freq=1, images=True, check_numerics=True, writer=writer, optimizer=optimizer
        )
        assert hooks_of(model, optimizer) != before
        train(model, (2, 1, 8, 8), 1, optimizer)
        handle.remove()
        handle.remove()
        assert hooks_of(model, optimizer) == before
        train(model, (2, 1, 8, 8), 2, optimizer)  # nothing more is written
    steps = {step for _, series in read_tensors(logdir, "histograms")["."].items() for step, _ in series}
    assert steps == {0}


def test_activation_hooks_are_on_the_model_only_for_logged_steps(logdir):
    """A forward hook costs every call of its module: between logged steps, none."""
    model = mlp()
    leaves = [m for m in model.modules() if not list(m.children())]
    hooked = []
    with (
        sl.create_file_writer(logdir) as writer,
        watch(model, log="activations", log_freq=3, writer=writer) as handle,
    ):
        for _ in range(7):
            hooked.append(all(len(m._forward_hooks) == 1 for m in leaves))
            train(model, (4, 8), 1)
        assert handle.step == 7
    assert hooked == [True, False, False, True, False, False, True]
    assert all(not m._forward_hooks for m in leaves)
    histograms = read_tensors(logdir, "histograms")["."]
    assert [step for step, _ in histograms["activations/0"]] == [0, 3, 6]


class NaNAt(torch.nn.Module):
    """Passes its input through, except at one call, where it turns it all into NaN."""

    def __init__(self, at: int) -> None:
        super().__init__()
        self.at, self.calls = at, 0

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.calls += 1
        return x * float("nan") if self.calls - 1 == self.at else x


def nan_model() -> torch.nn.Module:
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), NaNAt(2), torch.nn.Linear(8, 1))


EXPECTED = (
    "step 2: first non-finite values in the output of module '2', shape [3, 8]: 24 NaN, 0 +Inf, 0 -Inf "
    "(3 checked tensor(s) of this pass held NaN or Inf)"
)


def test_first_nan_is_reported_at_its_layer_and_step_and_raises(logdir):
    model = nan_model()
    with (
        sl.create_file_writer(logdir) as writer,
        watch(model, check_numerics=True, writer=writer),
        pytest.raises(FloatingPointError, match="summarylib watch: ") as raised,
    ):
        for _ in range(5):
            model(torch.ones(3, 4)).sum().backward()
    assert str(raised.value) == f"summarylib watch: {EXPECTED}"
    assert model[2].calls == 3
    text = read_tensors(logdir, "text")["."]["numerics/first_nonfinite"]
    assert [(step, value.item().decode()) for step, value in text] == [(2, EXPECTED)]
    assert read_scalars(logdir)["."]["numerics/nonfinite_tensors"] == [(2, 3.0)]


def test_training_continues_without_raise_on_nonfinite(logdir):
    model = nan_model()
    with (
        sl.create_file_writer(logdir) as writer,
        watch(model, log="gradients", check_numerics=True, raise_on_nonfinite=False, writer=writer) as handle,
    ):
        for _ in range(5):
            model.zero_grad()
            model(torch.ones(3, 4)).sum().backward()
        assert handle.step == 5
        assert handle.nonfinite is not None and handle.nonfinite.module == "2"
    text = read_tensors(logdir, "text")["."]["numerics/first_nonfinite"]
    assert [(step, value.item().decode()) for step, value in text] == [(2, EXPECTED)]


class ZeroSqrt(torch.nn.Module):
    """Finite forward (sqrt of 0), non-finite backward (its derivative at 0 is infinite)."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sqrt(x - x.detach()) + x


def test_a_nonfinite_gradient_is_reported_from_backward(logdir):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), ZeroSqrt(), torch.nn.Linear(8, 1))
    with sl.create_file_writer(logdir) as writer, watch(model, log=None, check_numerics=True, writer=writer):
        loss = model(torch.ones(3, 4)).sum()  # the forward pass is finite
        with pytest.raises(
            FloatingPointError, match=r"step 0: .* the gradient of (weight|bias) of module '0'"
        ):
            loss.backward()


def test_optimizer_steps_and_a_step_callable_set_the_steps(logdir):
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    global_step = [100]
    with (
        sl.create_file_writer(logdir) as writer,
        watch(
            model,
            log=["parameters", "gradients"],
            log_freq=2,
            writer=writer,
            optimizer=optimizer,
            step=lambda: global_step[0],
        ) as handle,
    ):
        for _ in range(4):
            for _ in range(3):  # gradient accumulation: three backward passes a step
                model(torch.randn(2, 8)).sum().backward()
            optimizer.step()
            optimizer.zero_grad()
            global_step[0] += 1
        assert handle.step == 4
    histograms = read_tensors(logdir, "histograms")["."]
    for tag in ("parameters/0.weight", "gradients/0.weight"):  # no gradient hooks needed
        assert [step for step, _ in histograms[tag]] == [100, 102]


def test_default_writer_and_record_if(logdir):
    model = mlp()
    writer = sl.create_file_writer(logdir)
    with watch(model, log="gradients", log_freq=1) as handle:
        train(model, (2, 8), 1)  # no default writer: nothing written, still counted
        with writer.as_default():
            train(model, (2, 8), 1)
            with sl.record_if(False):
                train(model, (2, 8), 1)
        assert handle.step == 3
    writer.close()
    assert [s for s, _ in read_tensors(logdir, "histograms")["."]["gradients/0.weight"]] == [1]


@pytest.mark.parametrize(
    ("arguments", "error", "match"),
    [
        ({"log": "weights"}, ValueError, "argument 'log': expected 'all'"),
        ({"log_freq": 0}, ValueError, "argument 'log_freq': expected a positive int, got int 0"),
        ({"variance_steps": -1}, ValueError, "argument 'variance_steps'"),
        ({"writer": "runs"}, TypeError, "argument 'writer': expected a summarylib writer, got str"),
        ({"step": 3}, TypeError, "argument 'step': expected a callable"),
        # A string is no flag (it used to be taken for True).
        ({"images": "no"}, TypeError, "argument 'images': expected a bool, got str 'no'"),
        ({"check_numerics": "off"}, TypeError, "argument 'check_numerics': expected a bool"),
        ({"raise_on_nonfinite": "False"}, TypeError, "argument 'raise_on_nonfinite': expected a bool"),
        ({"live": [True]}, TypeError, "argument 'live': expected a bool, got list"),
    ],
)
def test_bad_arguments_are_named(arguments, error, match):
    with pytest.raises(error, match=match):
        watch(mlp(), **arguments)
    with pytest.raises(TypeError, match=r"argument 'model': expected a torch\.nn\.Module, got list"):
        watch([])


def test_grid_layout_of_a_million_values_is_about_square():
    grid = tensor_grid.layout(["w", "b"], [(1000, 999), (1000,)])
    assert grid.width == 1000 and grid.height == 999 + 1 + 1
    assert grid.rows == (0, 1000) and grid.band_rows == (999, 1)


def test_grid_image_takes_numpy_and_marks_nonfinite_values():
    weights = {"a": np.arange(12.0).reshape(3, 4), "b": np.array([1.0, np.nan, np.inf, 2.0])}
    image, description = tensor_grid.grid_image(weights)
    assert image.dtype == np.uint8 and image.shape == (3 + 1 + 1, 4, 1)
    band = image[:, :, 0].reshape(-1)
    np.testing.assert_allclose(
        (band[:12] - 1) / 254, tensor_grid.normalized(weights["a"].reshape(-1)), atol=0.51 / 254
    )
    assert not band[12:16].any()  # the separator row
    assert band[17] == 0 and band[18] == 0 and band[16] == 1 and band[19] == 255
    assert "| 4-4 | b | [4] |" in description
    # each band's range, the values its gray levels 1 and 255 stand for (the Live hover's)
    low, high = tensor_grid.band_range(weights["a"].reshape(-1))
    assert f"| 0-2 | a | [3, 4] | {low:.6g}..{high:.6g} |" in description and low < high
    assert "| 4-4 | b | [4] | 1.005..1.995 |" in description  # of the finite values


def test_window_variance_is_the_variance_of_each_window():
    rng = np.random.default_rng(0)
    variance = tensor_grid.WindowVariance(3)
    history = []
    for index in range(8):
        values = rng.normal(5, 1, size=50).astype(np.float32)
        history.append(values)
        result = variance.update(values)
        if index % 3 < 2:
            assert result is None
        else:
            np.testing.assert_allclose(result, np.var(history[-3:], axis=0), rtol=1e-4, atol=1e-6)


def test_window_variance_resolves_small_moves_of_large_weights():
    """A weight of 0.05 moving by about 1e-5 a step: variance ~1e-10, far below float32's
    resolution of the weight's square."""
    rng = np.random.default_rng(0)
    steps = 0.05 + np.cumsum(rng.normal(0, 1e-5, size=(10, 1000)), axis=0)
    variance = tensor_grid.WindowVariance(10)
    for values in steps[:-1]:
        assert variance.update(values) is None
    np.testing.assert_allclose(variance.update(steps[-1]), np.var(steps, axis=0), rtol=1e-2)


def test_finite_values_that_overflow_a_sum_are_not_reported(logdir):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 64), torch.nn.Linear(64, 1))
    with torch.no_grad():
        model[0].bias.fill_(3e38)  # finite outputs whose float32 sum is +Inf
    with watch(model, log=None, check_numerics=True) as handle:
        model(torch.zeros(2, 4))
    assert handle.nonfinite is None


@pytest.mark.slow
def test_views_queued_when_the_interpreter_exits_are_written(tmp_path):
    """Without close(): the writer drains at exit, after Python's thread pools shut down."""
    code = """
import sys, torch, summarylib as sl
from summarylib.integrations.torch import watch
writer = sl.create_file_writer(sys.argv[1])
writer.set_as_default()
model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU(), torch.nn.Linear(3, 1))
watch(model, log="all", log_freq=1, images=True)
for step in range(3):
    model(torch.randn(2, 4)).sum().backward()
"""
    result = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)],
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=ROOT),
        timeout=120,
    )
    assert result.returncode == 0 and "failed" not in result.stderr, result.stderr
    tags = {value.tag for value in iter_values(str(tmp_path))}
    assert {"parameters/0.weight", "gradients/0.weight", "activations/0", "images/parameters"} <= tags
