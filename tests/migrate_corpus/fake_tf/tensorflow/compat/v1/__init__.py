"""tensorflow.compat.v1 for graph code: placeholders, products, scalar summary ops,
merge_all and a Session that evaluates them with a feed_dict."""

from __future__ import annotations

from types import SimpleNamespace

from summarylib.proto import summary_pb2

float32 = "float32"
_summaries: list = []


def disable_v2_behavior() -> None:
    """Graph mode is the only mode here."""


class Tensor:
    """A graph node: a function of the feed_dict."""

    def __init__(self, evaluate) -> None:
        self.evaluate = evaluate

    def __mul__(self, other: Tensor) -> Tensor:
        return Tensor(lambda feed: self.evaluate(feed) * other.evaluate(feed))


def placeholder(dtype, shape=None, name=None) -> Tensor:
    node = Tensor(lambda feed: feed[node])
    return node


def _scalar(name: str, tensor: Tensor) -> Tensor:
    def evaluate(feed):
        value = summary_pb2.Summary.Value(tag=name, simple_value=float(tensor.evaluate(feed)))
        return summary_pb2.Summary(value=[value]).SerializeToString()

    op = Tensor(evaluate)
    _summaries.append(op)
    return op


def _merge_all() -> Tensor:
    ops = list(_summaries)
    return Tensor(lambda feed: b"".join(op.evaluate(feed) for op in ops))


summary = SimpleNamespace(scalar=_scalar, merge_all=_merge_all)


class Session:
    """Evaluates fetched nodes with the feed_dict."""

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc_info) -> None:
        return None

    def run(self, fetch: Tensor, feed_dict: dict | None = None):
        return fetch.evaluate(feed_dict or {})
