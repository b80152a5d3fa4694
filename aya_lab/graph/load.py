"""Read a spec: YAML (safe loader, no aliases) or JSON files within size and depth limits
(:mod:`~aya_lab.graph.reader`), or dicts; resolve overlays; check; return a
validated :class:`~aya_lab.graph.spec.GraphSpec` or raise one :class:`SpecError` listing every
located problem."""

from __future__ import annotations

import hashlib
import json
import stat
import warnings
from collections.abc import Mapping
from os import PathLike
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from aya_lab.graph.check import check_spec
from aya_lab.graph.compat import normalize_aliases, prune_for_kenkenpa, resolve_mode
from aya_lab.graph.errors import Problem, Problems, SpecError, SpecWarning, format_path
from aya_lab.graph.overlay import apply_changes, check_overlay_structure, is_overlay
from aya_lab.graph.reader import (
    check_data_limits,
    check_spec_size,
    confine_base,
    read_spec_file,
    require_mapping,
)
from aya_lab.graph.registry import Registry, default_registry
from aya_lab.graph.spec import GraphSpec, SpecSource
from aya_lab.paths import file_kind

__all__ = ["load_spec", "read_spec_data", "spec_hash"]


def read_spec_data(
    source: SpecSource, *, base_dir: str | PathLike[str] | None = None
) -> tuple[object, tuple[str, ...]]:
    """The resolved spec data (overlays applied; a mapping, unless the source holds no spec) and its
    lineage (files, base first).

    Only overlay problems are raised here; the resolved data is not yet checked.
    """
    return _resolve(source, Path(base_dir) if base_dir else None, ())


def _resolve(
    source: SpecSource, base_dir: Path | None, seen: tuple[str, ...]
) -> tuple[dict[str, Any], tuple[str, ...]]:
    label: str | None = None
    if isinstance(source, GraphSpec):
        data: Any = source.to_dict()
    elif isinstance(source, Mapping):
        check_data_limits(source, None)
        data = dict(source)
    elif not isinstance(source, (str, PathLike)):
        data = source  # not a mapping: the structural check reports it
    else:
        path = Path(source)
        label = str(path)
        if str(path.resolve()) in seen:  # resolved: sub/../a.yaml is a.yaml
            raise SpecError([Problem("base", f"overlay cycle: {' -> '.join([*seen, str(path.resolve())])}")], label)
        data = read_spec_file(path)
        base_dir = path.parent
    data = normalize_aliases(data)
    if not is_overlay(data):
        return data, ((label,) if label else ())
    problems = Problems()
    check_overlay_structure(data, problems)
    problems.raise_if_any(label)
    where = label or "<overlay>"
    base_path = confine_base(data["base"], base_dir or Path.cwd(), where)
    _require_regular_base(base_path, problems, label)
    base, lineage = _resolve(base_path, None, (*seen, *((str(Path(label).resolve()),) if label else ())))
    require_mapping(base, base_path, where)
    resolved = normalize_aliases(apply_changes(base, data, problems))
    problems.raise_if_any(label)
    return resolved, (*lineage, *((label,) if label else ("<overlay>",)))


def _require_regular_base(base_path: Path, problems: Problems, label: str | None) -> None:
    """Refuse a ``base`` that is missing or is not a regular file, saying what it is; found from its
    ``stat`` alone, so a named pipe is never opened (it would block)."""
    try:
        mode = base_path.stat().st_mode
    except OSError:
        problems.add(["base"], f"base spec {str(base_path)!r} not found (a base path is relative to the overlay file)")
        problems.raise_if_any(label)
        return
    if not stat.S_ISREG(mode):
        problems.add(
            ["base"],
            f"base spec {str(base_path)!r} is {file_kind(mode)}, not a regular file; "
            "name a .yaml or .json spec file (relative to the overlay file)",
        )
        problems.raise_if_any(label)


def load_spec(
    source: SpecSource,
    registry: Registry | None = None,
    *,
    check_registry: bool = True,
    base_dir: str | PathLike[str] | None = None,
    compat: str | None = None,
) -> GraphSpec:
    """Read, resolve overlays, check everything, return the :class:`GraphSpec`.

    ``source`` is a YAML/JSON file path, a dict or a GraphSpec. ``registry`` (default:
    :func:`~aya_lab.graph.registry.default_registry`) supplies the names a spec may use; with
    ``check_registry=False`` unknown factory/type/reducer/function names are not problems (drawing
    with placeholders). ``compat`` (``"kenkenpa"`` or ``"strict"``) overrides the spec's own ``compat``
    key: in kenkenpa's mode what kenkenpa accepts is accepted, each case emitted as a located
    :class:`SpecWarning` and kept in ``spec.warnings``. Raises :class:`SpecError` listing all located
    problems.
    """
    data, lineage = read_spec_data(source, base_dir=base_dir)
    label = lineage[-1] if lineage else None
    check_spec_size(data, label)  # before the checks whose cost grows with the graph
    if compat is None and isinstance(source, GraphSpec):
        compat = source._mode
    mode = resolve_mode(data, compat)
    lenient = Problems()
    if mode == "kenkenpa":
        data = prune_for_kenkenpa(data, lenient)
    reg = registry if registry is not None else (default_registry() if check_registry else None)
    problems = check_spec(data, reg if check_registry else None, compat=mode == "kenkenpa", warnings=lenient)
    problems.raise_if_any(f"{label} (resolved)" if len(lineage) > 1 else label)
    try:
        spec = GraphSpec.model_validate(data)
    except ValidationError as exc:  # a safety net: check_structure should have caught it
        raise SpecError([Problem(format_path(list(e["loc"])), e["msg"]) for e in exc.errors()], label) from None
    if isinstance(source, GraphSpec):  # re-checking a loaded spec keeps where it came from
        label, lineage = source.source, source.lineage
    spec._source, spec._lineage, spec._mode = label, lineage, compat
    spec._warnings = tuple(str(w) for w in lenient.items)
    for line in spec._warnings:
        warnings.warn(f"{label or 'graph spec'}: {line}", SpecWarning, stacklevel=2)
    return spec


def spec_hash(spec: SpecSource, *, compat: str | None = None) -> str:
    """The identity of a resolved spec: sha256 of its canonical JSON (sorted keys, no spaces, defaults left
    out), 16 hex characters. The one spec hash of the package (``aya-lab graph hash``, ``ChatRoom.spec_hash``);
    ``spec`` is loaded first, without registry checks, unless it is a :class:`GraphSpec`
    (``compat``: the mode to load it in, see :func:`load_spec`). Pinned values live in the tests: changing
    the canonical form changes every recorded hash."""
    if not isinstance(spec, GraphSpec):
        spec = load_spec(spec, check_registry=False, compat=compat)
    canonical = json.dumps(spec.to_dict(), sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]
