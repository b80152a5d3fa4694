"""Round trip (to_spec/to_dict), content hashes, the JSON Schema, and the `aya-lab graph` commands."""

from __future__ import annotations

import argparse
import json

import pytest
import yaml
from graph_helpers import SPECS

from aya_lab.graph import GraphSpec, build_graph, json_schema, load_spec, spec_hash, to_spec
from aya_lab.graph import cli as graph_cli

ALL_SPECS = sorted(p.name for p in SPECS.iterdir() if p.suffix in (".yaml", ".json"))


@pytest.mark.parametrize("name", ALL_SPECS)
def test_round_trip(registry, name):
    spec = load_spec(SPECS / name, registry=registry)
    graph = build_graph(spec, registry)
    again = to_spec(graph)
    assert isinstance(again, GraphSpec) and again == spec and again is not spec
    assert to_spec(graph.compile()) == spec
    assert load_spec(again.to_dict(), registry=registry) == spec
    assert spec_hash(again) == spec_hash(spec)
    assert len(spec_hash(spec)) == 16


def test_hash_ignores_format_order_and_defaults(registry, tmp_path):
    spec = load_spec(SPECS / "routing.yaml", registry=registry)
    data = spec.to_dict()
    data["flows"][0]["factory_parameter"] = {}  # a default, written out
    as_json = tmp_path / "routing.json"
    as_json.write_text(json.dumps(dict(reversed(list(data.items())))))
    assert spec_hash(load_spec(as_json, registry=registry)) == spec_hash(spec)
    data["flows"][0]["factory_parameter"] = {"label": "other"}
    assert spec_hash(data) != spec_hash(spec)


def test_to_spec_rejects_other_objects():
    with pytest.raises(TypeError, match="to_spec"):
        to_spec(42)


def test_json_schema_accepts_the_example_specs_and_rejects_typos():
    jsonschema = pytest.importorskip("jsonschema")
    schema = json_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    for name in ALL_SPECS:
        text = (SPECS / name).read_text()
        data = json.loads(text) if name.endswith(".json") else yaml.safe_load(text)
        assert not list(validator.iter_errors(data)), name
    bad = yaml.safe_load((SPECS / "routing.yaml").read_text())
    bad["flows"][0]["factory_paramter"] = {}
    assert list(validator.iter_errors(bad))
    bad = yaml.safe_load((SPECS / "routing.yaml").read_text())
    bad["flows"][5]["flow_parameter"]["conditions"][0]["expression"] = {"equal": [1, 1]}
    assert list(validator.iter_errors(bad))


def cli(capsys, *argv):
    code = graph_cli.graph_main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_schema(capsys):
    code, out, _ = cli(capsys, "graph", "schema")
    assert code == 0 and json.loads(out)["$defs"]["GraphSpec"]["properties"]["kind"]["const"] == "stategraph"


def test_cli_validate_with_registry_ref(capsys, monkeypatch):
    import graph_helpers

    monkeypatch.setattr(graph_helpers, "REGISTRY", graph_helpers.make_registry(), raising=False)
    code, out, err = cli(capsys, "graph", "validate", str(SPECS / "routing.yaml"))
    assert code == 2 and "unknown factory 'test.record.v1'" in err
    code, out, err = cli(
        capsys, "graph", "validate", str(SPECS / "routing.yaml"), "--registry", "graph_helpers:make_registry"
    )
    assert code == 0 and out.startswith("ok: Routing (4 nodes, 7 flows), hash ")


def test_cli_draw(capsys):
    code, out, err = cli(capsys, "graph", "draw", str(SPECS / "routing.yaml"))
    assert code == 2 and "--placeholders" in err
    code, out, _ = cli(capsys, "graph", "draw", str(SPECS / "routing.yaml"), "--placeholders")
    assert code == 0 and "router -.-> node_a;" in out
    code, out, _ = cli(
        capsys, "graph", "draw", str(SPECS / "subgraph.yaml"), "--format", "ascii", "--placeholders", "--xray"
    )
    assert code == 0 and "| tools |" in out and "wrap_up" in out
    code, out, _ = cli(
        capsys, "graph", "draw", str(SPECS / "map_reduce.yaml"), "--registry", "graph_helpers:make_registry"
    )
    assert code == 0 and "generate_topics -.-> generate_joke;" in out


def test_cli_hash_and_resolve(capsys, registry):
    code, out, _ = cli(capsys, "graph", "hash", str(SPECS / "one_call_summarizer.yaml"))
    assert code == 0 and out.strip() == spec_hash(load_spec(SPECS / "one_call_summarizer.yaml", registry=registry))
    code, out, _ = cli(capsys, "graph", "resolve", str(SPECS / "one_call_summarizer.yaml"))
    assert code == 0 and yaml.safe_load(out)["flow_parameter"]["name"] == "Aya-like-one-call"
    code, out, _ = cli(capsys, "graph", "resolve", str(SPECS / "routing.yaml"), "--format", "json")
    assert code == 0 and json.loads(out)["kind"] == "stategraph"
    code, _, err = cli(capsys, "graph", "hash", str(SPECS / "missing.yaml"))
    assert code == 2 and err.startswith("error: ") and "missing.yaml" in err


def test_register_plugs_into_a_parent_parser():
    parser = argparse.ArgumentParser(prog="aya-lab")
    sub = parser.add_subparsers(dest="command")
    graph_cli.register_graph(sub)
    args = parser.parse_args(["graph", "draw", "x.yaml", "--format", "ascii"])
    assert args.func is graph_cli._cmd_draw and args.format == "ascii" and args.spec == "x.yaml"
