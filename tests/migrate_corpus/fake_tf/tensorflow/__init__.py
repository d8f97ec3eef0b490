"""A stand-in for the little of TensorFlow that migrated corpus programs still use for
computation (graph building, Session.run, eager switches), so tests run them without
TensorFlow. Summary ops it evaluates return real serialized Summary protos, as TF's do."""


def enable_eager_execution() -> None:
    """TF 1.x's switch; nothing to do here."""


class name_scope:
    """TF 2's name scope as a context manager: what it does to tags, TF 2 does inside its own
    tf.summary ops, so a migrated program must carry it in the tag itself."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __enter__(self) -> str:
        return self.name

    def __exit__(self, *exc: object) -> None:
        return None
