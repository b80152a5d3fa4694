"""Reading spec files that may be hostile: bounded size and depth, no YAML anchors or aliases, and
overlay bases confined to the overlay's folder.

A graph spec is small, hand-written data, so a file is refused before it can cost much:

- over :data:`MAX_SPEC_BYTES` (checked before reading, and at most that much is ever read);
- not UTF-8 text, or text holding a control character (NUL, ESC, C1...: anything YAML does not call
  printable; ``graph validate /proc/self/environ`` is refused here, at the first NUL, echoing nothing);
- nested deeper than :data:`MAX_SPEC_DEPTH` mappings/lists (checked while YAML is composed and
  before JSON is parsed, so a deep file never reaches a recursive function);
- using a YAML anchor (``&name``) or alias (``*name``): the composer refuses the first one it meets,
  so an alias bomb ("billion laughs") is never expanded. Spec values are written out instead;
- holding a duplicate mapping key, or an integer literal over
  :data:`~aya_lab.graph.literals.MAX_INT_DIGITS` digits (:mod:`aya_lab.graph.literals`; checked
  once the document is composed, before any value is built).

A path that is not a regular file (a folder, a named pipe, a device) is refused from its ``stat``,
saying what it is; it is never opened, so a named pipe cannot block the reader.

Data handed over as a dict gets the same depth limit plus a budget of :data:`MAX_SPEC_ITEMS` values
(a value shared by reference counts each time it appears, which bounds a dict built as a bomb).

An overlay's ``base`` must lie inside the overlay's own folder (subfolders included, links followed)
or inside the packaged ``aya_lab/graphs`` folder; anything else is refused before the file is opened,
so no error can echo another file's content. Every refusal is one :class:`SpecFileError` line
``FILE[:LINE:COL]: what is wrong; the fix``.
"""

from __future__ import annotations

import json
import re
import stat
from pathlib import Path
from typing import Any

import yaml

from aya_lab.errors import AyaLabError, InputError
from aya_lab.graph.errors import PathPart, SpecFileError, format_path
from aya_lab.graph.literals import int_literal_problem, json_int_offset, yaml_node_problem
from aya_lab.paths import file_kind
from aya_lab.text_safety import describe_code_points

__all__ = [
    "MAX_SPEC_BYTES",
    "MAX_SPEC_DEPTH",
    "MAX_SPEC_ITEMS",
    "MAX_SPEC_NODES",
    "MAX_SPEC_EDGES",
    "BUILTIN_GRAPHS",
    "read_spec_file",
    "spec_path",
    "check_data_limits",
    "check_spec_size",
    "confine_base",
    "require_mapping",
]

MAX_SPEC_BYTES = 256 * 1024
"""The largest spec file read (the room's own spec is about 5 KB)."""
MAX_SPEC_DEPTH = 32
"""The deepest nesting of mappings and lists (the deepest shipped or test spec has 12)."""
MAX_SPEC_ITEMS = 100_000
"""The most values a dict spec may hold, shared references counted each time."""
MAX_SPEC_NODES = 300
"""The most nodes (subgraphs and their nodes included) a spec may have (the room's graph has 5)."""
MAX_SPEC_EDGES = 1500
"""The most edges a spec may have: each start -> end pair of an edge, and each conditional edge or
entry point, subgraphs included. Checking a spec at both limits takes a fraction of a second."""
BUILTIN_GRAPHS = Path(__file__).resolve().parent.parent / "graphs"
"""The packaged specs (``aya_lab/graphs``): any overlay may name one of them as its base."""


def spec_path(value: str) -> str:
    """A SPEC argument as a file path: ``value`` itself when it exists, else the packaged graph it names
    (``aya`` -> ``aya_lab/graphs/aya.yaml``, as the room names its variants). Neither: :class:`InputError`
    naming the value and the fix."""
    if Path(value).exists():
        return value
    packaged = BUILTIN_GRAPHS / f"{value}.yaml"
    if re.fullmatch(r"\w+", value) and packaged.is_file():
        return str(packaged)
    names = ", ".join(sorted(p.stem for p in BUILTIN_GRAPHS.glob("*.yaml")))
    raise InputError(
        f"spec {value!r} is neither a file nor a packaged graph: give the path of a YAML/JSON spec, "
        f"or one of the packaged graph names ({names})"
    )


_NOT_PRINTABLE = re.compile("[^\t\n\r\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
"""What YAML (PyYAML's reader) refuses as not printable: C0 controls but tab and line breaks, DEL, C1
but NEL, surrogates, U+FFFE/U+FFFF. JSON allows none of them unescaped either."""
_ALIAS_FIX = "write the value out instead of using an alias"
_DEPTH_FIX = f"nested more than {MAX_SPEC_DEPTH} levels deep; a graph spec is shallow: flatten this value"


class _Refused(AyaLabError):
    """Raised inside the YAML composer: ``mark`` locates it."""

    def __init__(self, mark: yaml.Mark | None, message: str) -> None:
        super().__init__(message)
        self.mark = mark
        self.message = message


class _SpecLoader(yaml.SafeLoader):
    """PyYAML's safe loader that refuses anchors and aliases and counts nesting while composing."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0

    def fetch_flow_collection_start(self, TokenClass: Any) -> None:
        """Stop the scanner at too deep a ``[``/``{`` (it looks ahead of the composer in flow style)."""
        if self.flow_level >= MAX_SPEC_DEPTH:
            raise _Refused(self.get_mark(), _DEPTH_FIX)
        super().fetch_flow_collection_start(TokenClass)  # type: ignore[misc]

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node | None:
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent):
            raise _Refused(event.start_mark, f"YAML alias *{event.anchor} is not allowed in a graph spec; {_ALIAS_FIX}")
        if getattr(event, "anchor", None):
            raise _Refused(
                event.start_mark, f"YAML anchor &{event.anchor} is not allowed in a graph spec; {_ALIAS_FIX}"
            )
        if not isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            return super().compose_node(parent, index)
        self._depth += 1
        if self._depth > MAX_SPEC_DEPTH:
            raise _Refused(event.start_mark, _DEPTH_FIX)
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def _at(label: str, line: int, col: int) -> str:
    return f"{label}:{line}:{col}"


def _read_text(path: Path) -> str:
    label = str(path)
    info = path.stat()  # a missing file raises FileNotFoundError, as before; stat never opens it
    if not stat.S_ISREG(info.st_mode):
        raise SpecFileError(
            label, f"is {file_kind(info.st_mode)}, not a regular file; pass a .yaml or .json spec file", label
        )
    with path.open("rb") as fh:
        raw = fh.read(MAX_SPEC_BYTES + 1)
    if len(raw) > MAX_SPEC_BYTES:
        raise SpecFileError(
            label,
            f"larger than {MAX_SPEC_BYTES // 1024} KiB, the limit for a graph spec; "
            "split it into a base spec and overlays, or remove what it does not use",
            label,
        )
    try:
        text = raw.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        raise SpecFileError(
            label, f"not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset {exc.start}); re-save it as UTF-8", label
        ) from None
    bad = _NOT_PRINTABLE.search(text)
    if bad:
        i = bad.start()
        where = _at(label, text.count("\n", 0, i) + 1, i - text.rfind("\n", 0, i))
        raise SpecFileError(
            where,
            f"control character {describe_code_points(bad.group())} in a graph spec, which is text; "
            "remove it (a value that needs one writes it as an escape in a double-quoted string)",
            label,
        )
    return text


_FAST = getattr(yaml, "CSafeLoader", None)
"""libyaml's loader, when PyYAML has it: parsing a 256 KiB spec takes tens of milliseconds instead of
a second or more in pure Python."""


def _refuse_in_events(text: str) -> None:
    """The limits of :class:`_SpecLoader`, checked on libyaml's event stream before anything is
    composed: the first anchor or alias, a flow collection 33 deep, any collection 33 deep."""
    flows: list[bool] = []
    for event in yaml.parse(text, Loader=_FAST):
        if isinstance(event, yaml.AliasEvent):
            raise _Refused(event.start_mark, f"YAML alias *{event.anchor} is not allowed in a graph spec; {_ALIAS_FIX}")
        if getattr(event, "anchor", None):
            raise _Refused(
                event.start_mark, f"YAML anchor &{event.anchor} is not allowed in a graph spec; {_ALIAS_FIX}"
            )
        if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            flows.append(bool(event.flow_style))
            if len(flows) > MAX_SPEC_DEPTH or sum(flows) > MAX_SPEC_DEPTH:
                raise _Refused(event.start_mark, _DEPTH_FIX)
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            flows.pop()


def _compose_checked(loader: Any) -> Any:
    """The document ``loader`` reads: composed, checked for duplicate keys and too long integers
    (:func:`~aya_lab.graph.literals.yaml_node_problem`), then built (``yaml.load`` without the check)."""
    node = loader.get_single_node()
    found = yaml_node_problem(node, loader.construct_object)
    if found:
        raise _Refused(*found)
    return None if node is None else loader.construct_document(node)


def _parse_yaml(text: str, label: str, name: str) -> Any:
    """Parse with libyaml when PyYAML has it (anchors and aliases refused on its events, where
    :class:`_SpecLoader` refuses them); on a syntax error or too deep a nesting, parse again with the
    pure-Python :class:`_SpecLoader` for its own located message (it stops there, so this costs little)."""
    if _FAST is not None:
        try:
            _refuse_in_events(text)
            fast = _FAST(text)  # libyaml's *safe* loader
            try:
                return _compose_checked(fast)
            finally:
                fast.dispose()
        except _Refused as exc:
            if exc.message != _DEPTH_FIX:  # the place of a depth refusal is the pure-Python scanner's
                where = _at(label, exc.mark.line + 1, exc.mark.column + 1) if exc.mark else label
                raise SpecFileError(where, exc.message, label) from None
        except yaml.YAMLError:
            pass
    return _parse_yaml_slowly(text, label, name)


def _parse_yaml_slowly(text: str, label: str, name: str) -> Any:
    try:
        loader = _SpecLoader(text)
    except yaml.YAMLError as exc:  # the reader checks the text first; _read_text refused what it refuses
        raise SpecFileError(label, f"cannot parse {name}: {type(exc).__name__}; fix the text", label) from None
    try:
        return _compose_checked(loader)
    except _Refused as exc:
        where = _at(label, exc.mark.line + 1, exc.mark.column + 1) if exc.mark else label
        raise SpecFileError(where, exc.message, label) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = _at(label, mark.line + 1, mark.column + 1) if mark else label
        what = "; ".join(x for x in (exc.context, exc.problem) if x)  # never the snippet of the file
        raise SpecFileError(where, f"cannot parse {name}: {what}; fix the YAML syntax there", label) from None
    except (yaml.YAMLError, ValueError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise SpecFileError(label, f"cannot parse {name}: {first}", label) from None
    finally:
        loader.dispose()


def _json_too_deep(text: str) -> int | None:
    """The offset of the first ``[``/``{`` nested deeper than the limit (outside strings), or None."""
    depth, in_string, escaped = 0, False, False
    for i, ch in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > MAX_SPEC_DEPTH:
                return i
        elif ch in "]}":
            depth -= 1
    return None


def _parse_json(text: str, label: str, name: str) -> Any:
    deep = _json_too_deep(text)
    if deep is not None:
        line = text.count("\n", 0, deep) + 1
        raise SpecFileError(_at(label, line, deep - text.rfind("\n", 0, deep)), _DEPTH_FIX, label)
    try:
        return json.loads(text, parse_int=_json_int)
    except _Refused as exc:
        at = json_int_offset(text) or 0
        where = _at(label, text.count("\n", 0, at) + 1, at - text.rfind("\n", 0, at))
        raise SpecFileError(where, exc.message, label) from None
    except json.JSONDecodeError as exc:
        where = _at(label, exc.lineno, exc.colno)
        raise SpecFileError(where, f"cannot parse {name}: {exc.msg}; fix the JSON syntax there", label) from None
    except (ValueError, RecursionError) as exc:
        raise SpecFileError(label, f"cannot parse {name}: {str(exc).splitlines()[0]}", label) from None


def _json_int(literal: str) -> int:
    problem = int_literal_problem(literal)
    if problem:
        raise _Refused(None, problem)
    return int(literal)


def read_spec_file(path: Path) -> object:
    """The data of a YAML or JSON spec file, within the limits above (:class:`SpecFileError` if not)."""
    text = _read_text(path)
    if path.suffix.lower() == ".json":
        return _parse_json(text, str(path), path.name)
    return _parse_yaml(text, str(path), path.name)


def check_data_limits(data: object, label: str | None) -> None:
    """Refuse spec data nested deeper than :data:`MAX_SPEC_DEPTH` or holding more than
    :data:`MAX_SPEC_ITEMS` values (walked without recursion; shared values counted each time)."""
    stack: list[tuple[Any, int, tuple[PathPart, ...]]] = [(data, 1, ())]
    seen = 0
    where = label or "<spec>"
    while stack:
        node, depth, path = stack.pop()
        seen += 1
        if seen > MAX_SPEC_ITEMS:
            raise SpecFileError(
                where,
                f"more than {MAX_SPEC_ITEMS} values (a value shared by reference counts each time); "
                "a graph spec is small: pass plain, unshared data",
                label,
            )
        if isinstance(node, dict):
            children: Any = node.items()
        elif isinstance(node, (list, tuple)):
            children = enumerate(node)
        else:
            continue
        if depth > MAX_SPEC_DEPTH:
            raise SpecFileError(f"{where}: {format_path(path)}", _DEPTH_FIX, label)
        for key, value in children:
            stack.append((value, depth + 1, (*path, key if isinstance(key, int) else str(key))))


def check_spec_size(data: object, label: str | None) -> None:
    """Refuse resolved spec data with more than :data:`MAX_SPEC_NODES` nodes or :data:`MAX_SPEC_EDGES`
    edges (counted without recursion), before any check whose cost grows with them runs."""
    nodes = edges = 0
    todo = [data]
    while todo:
        graph = todo.pop()
        flows = graph.get("flows") if isinstance(graph, dict) else None
        for flow in flows if isinstance(flows, list) else []:
            kind = flow.get("kind") if isinstance(flow, dict) else None
            fp = flow.get("flow_parameter") if isinstance(flow, dict) else None
            if kind in ("node", "stategraph"):
                nodes += 1
                todo.append(flow)
            elif kind == "edge" and isinstance(fp, dict):
                ends = [len(k) if isinstance(k, list) else 1 for k in (fp.get("start_key"), fp.get("end_key"))]
                edges += ends[0] * ends[1]
            elif kind is not None:
                edges += 1
    for count, limit, what in ((nodes, MAX_SPEC_NODES, "nodes"), (edges, MAX_SPEC_EDGES, "edges")):
        if count > limit:
            raise SpecFileError(
                label or "<spec>",
                f"{count} {what}, over the limit of {limit} for a graph spec; split the graph into "
                "smaller specs, or build it in Python",
                label,
            )


def confine_base(base: str, folder: Path, overlay: str) -> Path:
    """The path of an overlay's ``base``: relative to ``folder`` (the overlay's), and refused unless it
    lies inside ``folder`` or the packaged :data:`BUILTIN_GRAPHS` (links followed). Nothing is read."""
    candidate = Path(base) if Path(base).is_absolute() else folder / base
    target = candidate.resolve()
    if not any(target.is_relative_to(root.resolve()) for root in (folder, BUILTIN_GRAPHS)):
        raise SpecFileError(
            f"{overlay}: base",
            f"{base!r} lies outside the overlay's folder {str(folder)!r}; put the base spec in that folder "
            "(or a subfolder) and name it relative to the overlay, or name a packaged spec in aya_lab/graphs",
            overlay,
        )
    return candidate


def require_mapping(data: object, base: Path, overlay: str) -> None:
    """A base spec must be a mapping; say so in one line without echoing its content."""
    if not isinstance(data, dict):
        raise SpecFileError(
            f"{overlay}: base",
            f"base spec {str(base)!r} is a {type(data).__name__}, not a mapping; "
            "a base is a graph spec (kind: stategraph) or another overlay",
            overlay,
        )
