"""A stand-in for the little of TensorFlow that migrated corpus programs still use for
computation (graph building, Session.run, eager switches), so tests run them without
TensorFlow. Summary ops it evaluates return real serialized Summary protos, as TF's do."""


def enable_eager_execution() -> None:
    """TF 1.x's switch; nothing to do here."""
