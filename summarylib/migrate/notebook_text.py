"""A notebook's changed code cells put back into its JSON text as it is: only the `source`
arrays of the changed cells are rewritten, and in them only the changed lines, in the
style of the array around them (its indentation, line endings, escapes). Everything else
(outputs, markdown, metadata, the final newline or its absence, CRLF, raw or escaped
non-ASCII) stays byte-identical, whichever tool wrote the notebook. Re-dumping the JSON
instead would have to guess that tool's style exactly.

The text is scanned with the json module's own scanner for strings and values, so that
finding the cells' sources costs about what parsing the notebook does."""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass

_SPACE = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()
# A \u escape of a character above ASCII (\u0080 and up; \u001b is a control character).
_NON_ASCII_ESCAPE = re.compile(r"\\u(?!00[0-7])[0-9a-fA-F]{4}")


@dataclass
class _Source:
    """Where one cell's `source` value is in the text: the whole value, and each string
    element of it (a source given as one string is one element, without brackets)."""

    start: int
    end: int
    elements: list[tuple[int, int]]
    is_list: bool


def splice(text: str, sources: dict[int, str], before: dict[int, str]) -> str:
    """`text` (a notebook's JSON) with the source of each cell `index` in `sources` replaced:
    `before` holds each such cell's source as it was, so unchanged lines keep their bytes."""
    spans = _source_spans(text)
    pieces, at = [], 0
    for index in sorted(sources):
        span = spans[index]
        pieces.append(text[at : span.start])
        pieces.append(_render(text, span, before[index], sources[index]))
        at = span.end
    pieces.append(text[at:])
    return "".join(pieces)


def _skip(text: str, at: int) -> int:
    return _SPACE.match(text, at).end()  # type: ignore[union-attr]  # the pattern matches ""


def _expect(text: str, at: int, char: str) -> int:
    """Where `char`, the next character after white space, ends (or a ValueError)."""
    at = _skip(text, at)
    if text[at : at + 1] != char:
        raise ValueError(f"expected {char!r} at character {at}")
    return at + 1


def _value_end(text: str, at: int) -> int:
    return _DECODER.raw_decode(text, at)[1]


def _members(text: str, at: int) -> dict[str, tuple[int, int]]:
    """The (start, end) of each member's value of the object starting at `at`."""
    at = _skip(text, _expect(text, at, "{"))
    found: dict[str, tuple[int, int]] = {}
    while text[at] != "}":
        key, at = _DECODER.raw_decode(text, _expect(text, at, '"') - 1)
        start = _skip(text, _expect(text, at, ":"))
        found[key] = (start, _value_end(text, start))
        at = _skip(text, found[key][1])
        if text[at] == ",":
            at = _skip(text, at + 1)
    return found


def _elements(text: str, at: int) -> list[tuple[int, int]]:
    """The (start, end) of each element of the array starting at `at`."""
    at = _skip(text, _expect(text, at, "["))
    found: list[tuple[int, int]] = []
    while text[at] != "]":
        found.append((at, _value_end(text, at)))
        at = _skip(text, found[-1][1])
        if text[at] == ",":
            at = _skip(text, at + 1)
    return found


def _source_spans(text: str) -> dict[int, _Source]:
    """Each cell's `source` span, by the cell's index."""
    spans: dict[int, _Source] = {}
    cells = _members(text, _skip(text, 0)).get("cells")
    for index, (start, _) in enumerate(_elements(text, cells[0]) if cells else []):
        source = _members(text, start).get("source")
        if source is not None:
            is_list = text[source[0]] == "["
            elements = _elements(text, source[0]) if is_list else [source]
            spans[index] = _Source(source[0], source[1], elements, is_list)
    return spans


def _render(text: str, span: _Source, before: str, after: str) -> str:
    """The new source value: the old elements' text where a line is unchanged, new lines in
    the style of the old ones."""
    ascii_only = _escapes_non_ascii(text)
    if not span.is_list:
        return json.dumps(after, ensure_ascii=ascii_only)
    old = before.splitlines(keepends=True)
    new = after.splitlines(keepends=True)
    raw = [text[start:end] for start, end in span.elements]
    if [json.loads(element) for element in raw] != old:  # not one element a line: none kept
        raw = [json.dumps(line, ensure_ascii=ascii_only) for line in old]
    out: list[str] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag == "equal":
            out.extend(raw[i1:i2])
        else:
            out.extend(json.dumps(line, ensure_ascii=ascii_only) for line in new[j1:j2])
    opening, separator, closing = _array_style(text, span)
    return "[" + opening + separator.join(out) + closing + "]" if out else "[]"


def _array_style(text: str, span: _Source) -> tuple[str, str, str]:
    """What the source array has after `[`, between elements and before `]`."""
    newline = "\r\n" if "\r\n" in text else "\n"
    if span.elements:
        opening = text[span.start + 1 : span.elements[0][0]]
        closing = text[span.elements[-1][1] : span.end - 1]
        second = span.elements[1][0] if len(span.elements) > 1 else None
        separator = text[span.elements[0][1] : second] if second else "," + opening
        return opening, separator, closing
    line_start = text.rfind("\n", 0, span.start) + 1
    indent = text[line_start : _skip(text, line_start)].strip("\r\n")
    unit = " " if indent.startswith(" ") else "\t"
    return newline + indent + unit, "," + newline + indent + unit, newline + indent


def _escapes_non_ascii(text: str) -> bool:
    """Whether the notebook writes non-ASCII as `\\u` escapes (no raw non-ASCII in it, and an
    escape of a character above ASCII), as Python's json.dump does by default."""
    if not text.isascii():
        return False
    return _NON_ASCII_ESCAPE.search(text) is not None
