"""Regenerate summarylib/proto/*_pb2.py from proto/summarylib/proto/*.proto.

Run `python proto/generate.py` after editing a .proto file and commit the result.
`--check` regenerates into a temporary folder and exits non-zero when the committed
code differs, which is what tests/test_protos.py runs.

The generator is pinned (grpcio-tools 1.74.0, protoc 31.1) so that the generated code
runs on every protobuf runtime from 6.31.1 up, the oldest one TensorFlow 2.21 accepts.
"""

from __future__ import annotations

import argparse
import filecmp
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROTO_ROOT = ROOT / "proto"
PACKAGE_DIR = PROTO_ROOT / "summarylib" / "proto"
OUTPUT_DIR = ROOT / "summarylib" / "proto"
PINNED_GRPCIO_TOOLS = "1.74.0"


def _protoc(out_dir: Path) -> None:
    try:
        from importlib.metadata import version

        from grpc_tools import protoc
    except ImportError:
        sys.exit(f"needs grpcio-tools=={PINNED_GRPCIO_TOOLS} (pip install -e '.[dev]')")
    found = version("grpcio-tools")
    if found != PINNED_GRPCIO_TOOLS:
        sys.exit(f"needs grpcio-tools=={PINNED_GRPCIO_TOOLS}, found {found}")
    sources = sorted(str(p.relative_to(PROTO_ROOT)) for p in PACKAGE_DIR.glob("*.proto"))
    args = ["protoc", f"-I{PROTO_ROOT}", f"--python_out={out_dir}", f"--pyi_out={out_dir}", *sources]
    if protoc.main(args) != 0:
        sys.exit("protoc failed")


def generated_files(folder: Path) -> list[str]:
    """Names of the generated modules and stubs in `folder`."""
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(("_pb2.py", "_pb2.pyi")))


def stale_files() -> list[str]:
    """Generated files that differ from what protoc makes of the .proto sources now."""
    with tempfile.TemporaryDirectory() as tmp:
        _protoc(Path(tmp))
        fresh = Path(tmp) / "summarylib" / "proto"
        names = set(generated_files(fresh)) | set(generated_files(OUTPUT_DIR))
        return sorted(
            n
            for n in names
            if not (fresh / n).exists()
            or not (OUTPUT_DIR / n).exists()
            or not filecmp.cmp(fresh / n, OUTPUT_DIR / n, shallow=False)
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report stale files")
    if parser.parse_args().check:
        stale = stale_files()
        if stale:
            sys.exit("stale generated code, run `python proto/generate.py`: " + ", ".join(stale))
        print("generated code is current")
        return
    for name in generated_files(OUTPUT_DIR):
        (OUTPUT_DIR / name).unlink()
    _protoc(ROOT)
    print("regenerated", ", ".join(generated_files(OUTPUT_DIR)))


if __name__ == "__main__":
    main()
