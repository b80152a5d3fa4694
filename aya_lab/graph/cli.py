"""``aya-lab graph ...``: schema, validate, show, draw, hash and resolve graph specs.

The top-level ``aya_lab.cli`` calls :func:`register_graph` with its sub-parsers; each command stores its
handler as ``args.func`` (``func(args) -> exit code``). Standalone: ``python -m aya_lab.graph COMMAND``
(:mod:`aya_lab.graph.__main__`) or ``python -m aya_lab.graph.cli graph COMMAND``.

SPEC is a spec file, or the name of a packaged graph (``aya`` is ``aya_lab/graphs/aya.yaml``;
:func:`spec_path`).

Names come from the registries given with ``--registry NAME`` (repeatable), merged over the built-in
registry. NAME is one the project knows (:data:`KNOWN_REGISTRIES`, e.g. ``aya``) or one an installed
package declares under the entry-point group :data:`ENTRY_POINT_GROUP`; anything else is refused before
anything is imported, so ``--registry os:system`` neither imports nor calls anything. Without the
option, the Aya room's names ``aya_lab.room.names:aya_names`` are used (its factories are imported
when ``draw`` builds the graph, so ``validate`` and ``show`` never import the model stack). ``draw --placeholders``
draws without them (unknown factories become no-op nodes); ``validate`` always reports unknown names,
at most :data:`~aya_lab.graph.errors.MAX_SHOWN_PROBLEMS` of them unless ``--all`` is given.
``--compat kenkenpa`` reads a spec as kenkenpa does (each leniency printed as ``warning: ...``).
Bad input prints ``error: ...`` and exits with status 2.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import json
import sys
import warnings
from typing import Any

import yaml

from aya_lab.cli_groups import group_help
from aya_lab.errors import AyaLabError, InputError
from aya_lab.graph.errors import SpecError, SpecWarning
from aya_lab.graph.load import load_spec, spec_hash
from aya_lab.graph.reader import spec_path
from aya_lab.graph.registry import Registry, registry_from_refs
from aya_lab.graph.schema import json_schema
from aya_lab.graph.show import show_spec
from aya_lab.graph.spec import GraphSpec

__all__ = ["ENTRY_POINT_GROUP", "KNOWN_REGISTRIES", "register_graph", "graph_main", "registry_ref", "spec_path"]


DEFAULT_REGISTRY = "aya_lab.room.names:aya_names"
"""The Aya room's names, its factories imported only when a graph is built (``draw``): ``validate``
starts without the model stack."""
KNOWN_REGISTRIES: dict[str, str] = {
    "aya": DEFAULT_REGISTRY,
    DEFAULT_REGISTRY: DEFAULT_REGISTRY,
    "aya_lab.room.nodes:aya_registry": "aya_lab.room.nodes:aya_registry",
}
"""``--registry`` name -> the ``module:attr`` of the project's registry it means (the only references
the CLI imports; a test adds its helper registries here)."""
ENTRY_POINT_GROUP = "aya_lab.graph_registries"
"""The entry-point group where an installed package names its registry for ``--registry``."""


def registry_ref(name: str) -> str:
    """The ``module:attr`` that ``--registry NAME`` means; :class:`InputError` listing the accepted names
    for any other value (nothing is imported to find out)."""
    if name in KNOWN_REGISTRIES:
        return KNOWN_REGISTRIES[name]
    declared = {ep.name: ep.value for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)}
    if name in declared:
        return declared[name]
    accepted = ", ".join([*KNOWN_REGISTRIES, *declared])
    raise InputError(
        f"--registry {name!r} is not a registry of this project; use one of: {accepted} "
        f"(a package offers its own under the entry-point group {ENTRY_POINT_GROUP})"
    )


def _registry(args: argparse.Namespace) -> Registry:
    return registry_from_refs(tuple(registry_ref(name) for name in args.registry or ("aya",)))


def _load(args: argparse.Namespace, registry: Registry | None = None, **kwargs: Any) -> GraphSpec:
    """load_spec with the command's --compat; compatibility warnings go to stderr as ``warning: ...``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SpecWarning)
        spec = load_spec(spec_path(args.spec), registry, compat=args.compat, **kwargs)
    for line in spec.warnings:
        print(f"warning: {line}", file=sys.stderr)
    return spec


def _fail(exc: BaseException | str) -> int:
    print(f"error: {exc}", file=sys.stderr)
    return 2


def _cmd_schema(args: argparse.Namespace) -> int:
    print(json.dumps(json_schema(), indent=2))
    return 0


def _cmd_validate(args: argparse.Namespace) -> int:
    try:
        spec = _load(args, _registry(args))
    except SpecError as exc:
        return _fail(exc.render_all() if args.all else exc)
    except (AyaLabError, OSError) as exc:
        return _fail(exc)
    nodes = len(spec.node_names())
    print(f"ok: {spec.name} ({nodes} nodes, {len(spec.flows)} flows), hash {spec_hash(spec)}")
    return 0


def _cmd_show(args: argparse.Namespace) -> int:
    try:
        reg = _registry(args)
        text = show_spec(_load(args, reg), reg)
    except (AyaLabError, OSError) as exc:
        return _fail(exc)
    print(text, end="")
    return 0


def _cmd_draw(args: argparse.Namespace) -> int:
    try:
        reg = _registry(args)
        spec = _load(args, reg, check_registry=not args.placeholders)
        # building imports LangGraph's graph module (a second): only draw needs it, so it is imported here
        draw = importlib.import_module("aya_lab.graph.build").draw
        print(draw(spec, reg, format=args.format, placeholders=args.placeholders, xray=args.xray))
    except SpecError as exc:
        unknown = any("unknown factory" in p.message for p in exc.problems)
        hint = "\n(hint: --registry NAME, or --placeholders to draw without the factories)" if unknown else ""
        print(f"error: {exc}{hint}", file=sys.stderr)
        return 2
    except (AyaLabError, OSError) as exc:
        return _fail(exc)
    return 0


def _cmd_hash(args: argparse.Namespace) -> int:
    try:
        spec = _load(args, check_registry=False)
    except (AyaLabError, OSError) as exc:
        return _fail(exc)
    print(spec_hash(spec))
    return 0


def _cmd_resolve(args: argparse.Namespace) -> int:
    try:
        data: Any = _load(args, check_registry=False).to_dict()
    except (AyaLabError, OSError) as exc:
        return _fail(exc)
    if args.format == "json":
        print(json.dumps(data, indent=2, ensure_ascii=False))
    else:
        print(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), end="")
    return 0


def _with_registry(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--registry",
        action="append",
        metavar="NAME",
        help=f"a registry of this project (repeatable): {', '.join(KNOWN_REGISTRIES)}, or one a package "
        f"declares under the entry-point group {ENTRY_POINT_GROUP}",
    )


def register_graph(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    """Add ``graph`` (with ``schema``, ``validate``, ``show``, ``draw``, ``hash``, ``resolve``) to ``subparsers``."""
    graph = subparsers.add_parser("graph", help=group_help("graph"), description=__doc__.split("\n\n")[0])
    sub = graph.add_subparsers(dest="graph_command", metavar="COMMAND")
    sub.required = True

    def with_compat(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "--compat",
            choices=["kenkenpa", "strict"],
            help="read the spec as kenkenpa does (warnings instead of errors), or strictly; default: the spec's own 'compat' key, else strict",
        )

    p = sub.add_parser("schema", help="print the JSON Schema of spec files (for editors)")
    p.set_defaults(func=_cmd_schema)

    p = sub.add_parser("validate", help="check a spec (or overlay): every located problem, or 'ok' and its hash")
    p.add_argument("spec")
    p.add_argument("--all", action="store_true", help="list every problem (default: the first 20 and a count)")
    _with_registry(p)
    with_compat(p)
    p.set_defaults(func=_cmd_validate)

    p = sub.add_parser(
        "show", help="print the structure: state fields, nodes with their parameters (and models), edges"
    )
    p.add_argument("spec", help="a spec file, or a packaged graph name (aya, aya_onecall, ...)")
    _with_registry(p)
    with_compat(p)
    p.set_defaults(func=_cmd_show)

    p = sub.add_parser("draw", help="print the graph as mermaid text or ASCII")
    p.add_argument("spec")
    p.add_argument("--format", choices=["mermaid", "ascii"], default="mermaid")
    p.add_argument("--placeholders", action="store_true", help="draw unknown factories as no-op nodes")
    p.add_argument("--xray", action="store_true", help="expand subgraphs")
    _with_registry(p)
    with_compat(p)
    p.set_defaults(func=_cmd_draw)

    p = sub.add_parser("hash", help="content hash of the resolved spec")
    p.add_argument("spec")
    with_compat(p)
    p.set_defaults(func=_cmd_hash)

    p = sub.add_parser("resolve", help="print the resolved spec (overlays applied)")
    p.add_argument("spec")
    p.add_argument("--format", choices=["yaml", "json"], default="yaml")
    with_compat(p)
    p.set_defaults(func=_cmd_resolve)
    return graph


def graph_main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="aya-lab")
    register_graph(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(graph_main())
