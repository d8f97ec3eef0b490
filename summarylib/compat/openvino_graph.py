"""tensorboardX's `add_openvino_graph`: the graph of an OpenVINO IR model (its `.xml`
file) as the GraphDef tensorboardX writes for it, without openvino.

tensorboardX reads the IR itself: the `<layer id= name=>` children of the root's first
`<layers>` and the `<edge from-layer= to-layer=>` children of its first `<edges>`. Each
edge, in file order, is one NodeDef named by the destination layer's name, op `"op"`,
the source layer's name its one input and an attr `parameters` holding an empty string;
a layer that no edge enters has no node, one that several enter has a node per edge
(nodes of one name, which TensorBoard draws as one). `versions.producer` is 22. Ports,
precisions, shapes and the layers' own attributes are not written; nor are they here.

The file is parsed with the standard library's expat, as tensorboardX parses it with
ElementTree, but the way defusedxml does: no external entity is fetched, and a file that
declares entities (the way to make a small file expand to gigabytes) is refused.
"""

from __future__ import annotations

import os
from typing import Any
from xml.etree import ElementTree
from xml.parsers import expat

from summarylib.ops.errors import op_error
from summarylib.proto import graph_pb2

OP = "add_openvino_graph"
PRODUCER = 22  # tensorboardX's GraphDef.versions.producer


def _refuse_entities(name: str, *_: Any) -> None:
    raise ValueError(f"declares the entity {name!r} (files that declare entities are refused)")


def _parse(path: str) -> ElementTree.Element:
    """The file's element tree; expat's errors (and a declared entity) as ValueError."""
    builder = ElementTree.TreeBuilder()
    parser = expat.ParserCreate()
    parser.StartElementHandler = builder.start
    parser.EndElementHandler = builder.end
    parser.EntityDeclHandler = _refuse_entities
    with open(path, "rb") as file:
        try:
            parser.ParseFile(file)
        except expat.ExpatError as error:
            raise ValueError(f"is not well-formed XML: {error}") from None
    return builder.close()


def _children(root: ElementTree.Element, name: str) -> ElementTree.Element:
    element = root.find(name)
    if element is None:
        raise ValueError(
            f"has no <{name}> in its root <{root.tag}> (an OpenVINO IR has <layers> and <edges>)"
        )
    return element


def _attribute(element: ElementTree.Element, name: str) -> str:
    value = element.get(name)
    if value is None:
        raise ValueError(f"has a <{element.tag}> without the attribute {name!r}")
    return value


def _nodes(root: ElementTree.Element) -> list[graph_pb2.NodeDef]:
    layers = {_attribute(layer, "id"): _attribute(layer, "name") for layer in _children(root, "layers")}
    nodes = []
    for edge in _children(root, "edges"):
        source, destination = _attribute(edge, "from-layer"), _attribute(edge, "to-layer")
        unknown = next((layer for layer in (source, destination) if layer not in layers), None)
        if unknown is not None:
            raise ValueError(f"has an <edge> from or to the layer id {unknown!r}, which no <layer> has")
        node = graph_pb2.NodeDef(name=layers[destination], op="op", input=[layers[source]])
        node.attr["parameters"].s = b""
        nodes.append(node)
    return nodes


def openvino_graph_def(xmlname: Any) -> bytes:
    """The serialized GraphDef tensorboardX writes for the OpenVINO IR file `xmlname`
    (see the module docstring). Raises TypeError for a `xmlname` that is not a path,
    ValueError naming the file for one that is not such an IR, and open()'s OSError
    (FileNotFoundError, ...) as tensorboardX does."""
    if not isinstance(xmlname, (str, os.PathLike)):
        raise op_error(
            TypeError,
            OP,
            None,
            "xmlname",
            f"expected the path of an OpenVINO IR .xml file, got {type(xmlname).__name__}",
        )
    path = os.fspath(xmlname)
    try:
        nodes = _nodes(_parse(path))
    except ValueError as error:
        raise op_error(ValueError, OP, None, "xmlname", f"the file {path!r:.300} {error}") from None
    graph = graph_pb2.GraphDef(node=nodes, versions=graph_pb2.VersionDef(producer=PRODUCER))
    return graph.SerializeToString()
