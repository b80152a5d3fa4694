"""Strict vs kenkenpa's compatibility mode: every case kenkenpa accepts is refused in strict mode with a
located error naming the mode, and accepted in ``compat: kenkenpa`` with a located warning and
kenkenpa's behaviour. Also: ``wait_for: all`` joins, joins that can starve, hashes, schema and CLI."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest
from kenkenpa_helpers import (
    assert_steps,
    branch,
    compile_in,
    edge,
    entry,
    kenkenpa_registry,
    logged,
    node,
    state_is,
    stategraph,
    updates,
)

from aya_lab.graph import ConditionError, SpecError, SpecWarning, draw, json_schema, load_spec, spec_hash
from aya_lab.graph import cli as graph_cli
from aya_lab.graph.errors import COMPAT_HINT

ROOT = Path(__file__).resolve().parents[2]


def refusals(data, **kw) -> list[str]:
    with pytest.raises(SpecError) as info:
        load_spec(data, kenkenpa_registry(), **kw)
    return [str(p) for p in info.value.problems]


def lenient(data) -> tuple[object, list[str]]:
    with pytest.warns(SpecWarning) as record:
        spec = load_spec(data, kenkenpa_registry(), compat="kenkenpa")
    assert [str(w.message).split(": ", 1)[1] for w in record] == list(spec.warnings)
    return spec, list(spec.warnings)


def simple(*extra_flows) -> dict:
    """START -> a -> b -> END (flows[0..4]), then ``extra_flows``."""
    return stategraph("G", [node("a"), node("b"), edge("START", "a"), edge("a", "b"), edge("b", "END"), *extra_flows])


def test_unknown_keys_are_refused_with_the_mode_named_or_ignored_with_a_warning():
    data = simple()
    data.update(version="1.0", author="me")
    data["flow_parameter"]["author"] = "me"
    data["flows"][0]["flow_parameter"]["note"] = "x"
    assert sorted(refusals(data)) == sorted(
        [
            "version: unknown key (valid keys: kind, compat, flow_parameter, flows)" + COMPAT_HINT,
            "author: unknown key (valid keys: kind, compat, flow_parameter, flows)" + COMPAT_HINT,
            "flow_parameter.author: unknown key (valid keys: name, state, description)" + COMPAT_HINT,
            "flows[0].flow_parameter.note: unknown key (valid keys: name, factory)" + COMPAT_HINT,
        ]
    )
    spec, warned = lenient(data)
    assert sorted(warned) == sorted(
        [
            "version: unknown key ignored (compat: kenkenpa)",
            "author: unknown key ignored (compat: kenkenpa)",
            "flow_parameter.author: unknown key ignored (compat: kenkenpa)",
            "flows[0].flow_parameter.note: unknown key ignored (compat: kenkenpa)",
        ]
    )
    assert spec.to_dict() == load_spec(simple(), kenkenpa_registry()).to_dict()


def test_null_factory_parameter():
    data = simple()
    data["flows"][0]["factory_parameter"] = None
    assert refusals(data) == ["flows[0].factory_parameter: expected a mapping, got null" + COMPAT_HINT]
    spec, warned = lenient(data)
    assert warned == ["flows[0].factory_parameter: null factory_parameter read as {} (compat: kenkenpa)"]
    assert_steps(updates(compile_in("kenkenpa", data), {"log": []}), [logged("a"), logged("b")])


def test_unknown_state_field_reads_none():
    inner = stategraph(
        "Inner",
        [
            node("x"),
            node("y"),
            edge("START", "x"),
            branch("x", [{"expression": state_is("topic", "pets"), "result": "y"}, {"default": "END"}]),
        ],
    )
    data = stategraph(
        "Parent", [inner, edge("START", "Inner"), edge("Inner", "END")], {"field_name": "topic", "type": "str"}
    )
    where = "flows[0].flows[3].flow_parameter.conditions[0].expression.eq[0].name"
    assert refusals(data) == [f"{where}: unknown state field 'topic' (state fields: log)" + COMPAT_HINT]
    _, warned = lenient(data)
    assert warned == [f"{where}: unknown state field 'topic' is read as None (compat: kenkenpa)"]
    got = updates(compile_in("kenkenpa", data), {"log": [], "topic": "pets"})
    assert got == [("Inner", {"log": ["x"]})]  # the subgraph does not see 'topic': None != 'pets'


def test_missing_default_fails_only_at_run_time():
    data = stategraph(
        "NoDefault",
        [node("a"), edge("START", "a"), branch("a", [{"expression": state_is("pick", "go"), "result": "END"}])],
        {"field_name": "pick", "type": "str"},
    )
    where = "flows[2].flow_parameter.conditions"
    assert refusals(data) == [
        f"{where}: no default: add a last condition like {{default: END}} (the target when no condition holds)"
        + COMPAT_HINT
    ]
    _, warned = lenient(data)
    assert warned == [f"{where}: no default: a run where no condition holds fails there (compat: kenkenpa)"]
    app = compile_in("kenkenpa", data)
    assert_steps(updates(app, {"log": [], "pick": "go"}), [logged("a")])
    with pytest.raises(ConditionError, match=re.escape(f"{where}: no condition held and there is no default")):
        app.invoke({"log": [], "pick": "stay"})


def test_several_defaults_are_all_followed():
    data = stategraph(
        "Defaults",
        [node(n) for n in "abc"]
        + [edge("START", "a"), branch("a", [{"default": "b"}, {"default": ["c"]}]), edge(["b", "c"], "END")],
    )
    assert refusals(data) == [
        "flows[4].flow_parameter.conditions[1].default: a second default (the first is flows[4].flow_parameter.conditions[0]); keep one"
        + COMPAT_HINT
    ]
    _, warned = lenient(data)
    assert warned == [
        "flows[4].flow_parameter.conditions[1].default: several defaults: all of them are followed when no condition holds (compat: kenkenpa)"
    ]
    assert_steps(updates(compile_in("kenkenpa", data), {"log": []}), [logged("a"), logged("b", "c")])


def test_start_inside_a_list_start_key():
    data = stategraph("S", [node("a"), node("b"), edge("START", "a"), edge(["START", "a"], "b"), edge("b", "END")])
    assert refusals(data) == [
        "flows[3].flow_parameter.start_key[0]: START inside a list start_key; write a separate edge {start_key: START, end_key: b}"
        + COMPAT_HINT
    ]
    _, warned = lenient(data)
    assert warned == [
        "flows[3].flow_parameter.start_key[0]: START in a list start_key: an edge START -> b (compat: kenkenpa)"
    ]
    assert_steps(updates(compile_in("kenkenpa", data), {"log": []}), [logged("a", "b"), logged("b")])


def test_the_mode_comes_from_the_spec_unless_given():
    data = simple()
    data["version"] = 2
    data["compat"] = "kenkenpa"
    with pytest.warns(SpecWarning, match="version: unknown key ignored"):
        spec = load_spec(data, kenkenpa_registry())
    assert spec.compat_mode == "kenkenpa" and spec.to_dict()["compat"] == "kenkenpa"
    assert refusals(data, compat="strict")[0].startswith("version: unknown key")
    with pytest.raises(ValueError, match="compat='kenkenpaa': use 'kenkenpa'"):
        load_spec(simple(), kenkenpa_registry(), compat="kenkenpaa")
    nested = stategraph("P", [{**simple(), "compat": "kenkenpa"}, edge("START", "G"), edge("G", "END")])
    assert "flows[0].compat: compat applies to the whole spec; put it at the top level only" in refusals(nested)


def test_a_spec_loaded_in_compat_mode_stays_in_it():
    data = simple()
    data["flows"][0]["factory_parameter"] = None
    with pytest.warns(SpecWarning):
        spec = load_spec(data, kenkenpa_registry(), compat="kenkenpa")
        again = load_spec(spec, kenkenpa_registry())
    assert again.compat_mode == "kenkenpa" and "compat" not in spec.to_dict()
    with pytest.warns(SpecWarning):
        assert spec_hash(data, compat="kenkenpa") == spec_hash(simple())  # null read as {}: a default
        assert "a --> b" in draw(data, kenkenpa_registry(), compat="kenkenpa")
    with pytest.raises(SpecError, match="factory_parameter: expected a mapping, got null"):
        spec_hash(data)


def test_hashes_of_specs_without_compat_are_unchanged():
    """Pinned before the optional ``compat``/``wait_for`` keys existed: they must not move. (The room
    graphs were re-pinned when ``aya.yaml`` gained ``route_on: auto``, and again when it gained ``aya_result`` and
    translated the request before delivery, when its query tool was set to quote the handbook, and when its
    delivery wrote three drafts, and when its agreement threshold became the translator record's, and when its
    query tool read scope from labelled questions, and when their gold sections voted for the section quoted:
    changes of content.)"""
    pinned = {
        "aya_lab/graphs/aya.yaml": "04f4be49e0677cfc",
        "aya_lab/graphs/aya_onecall.yaml": "a9c31942739bc63d",
        "aya_lab/graphs/aya_context3.yaml": "4f21d156d569c254",
        "examples/graphs/triage.yaml": "d296d894cb61b257",
        "tests/graph/specs/fan_out.yaml": "a787f97445c9407e",
        "tests/graph/specs/routing.yaml": "e285178ed359f8e9",
    }
    assert {name: spec_hash(ROOT / name) for name in pinned} == pinned
    data = load_spec(ROOT / "examples/graphs/triage.yaml", check_registry=False).to_dict()
    assert spec_hash({**data, "compat": "kenkenpa"}) != pinned["examples/graphs/triage.yaml"]


# -- joins ---------------------------------------------------------------------------------------------
def starving(entry_point: bool, targets: list | None = None) -> dict:
    conditions = [
        {"expression": state_is("pick", "b"), "result": targets or "b"},
        {"expression": state_is("pick", "bc"), "result": targets or ["b", "c"]},
        {"default": targets or "d"},
    ]
    flows = [node(n) for n in "abcde"] + [edge(["b", "c", "d"], "e", wait_for="all"), edge("e", "END")]
    flows += (
        [entry(conditions), edge("START", "a"), edge("a", "END")]
        if entry_point
        else [edge("START", "a"), branch("a", conditions)]
    )
    return stategraph("Fan-Out", flows, {"field_name": "pick", "type": "str"})


@pytest.mark.parametrize(("entry_point", "after"), [(False, "'a'"), (True, "START")])
@pytest.mark.parametrize("mode", [None, "kenkenpa"])
def test_a_join_fed_by_conditional_branches_can_starve(entry_point, after, mode):
    found = refusals(starving(entry_point), compat=mode)
    assert found == [
        f"flows[5].flow_parameter.wait_for: this join can starve: after {after} a conditional edge decides which "
        "of 'b', 'c', 'd' run (not always: 'b', 'c', 'd'), so one may run without the others and then 'e' never "
        "runs (LangGraph waits for every start). Fix: drop wait_for: all to run 'e' after whichever start ran "
        f"(kenkenpa's meaning), or make every branch after {after} reach all of them"
    ]


def test_a_join_after_a_plain_fan_out_and_a_branch_names_only_the_uncertain_start():
    flows = [node(n) for n in "abcd"] + [edge("START", "a"), edge("a", "b"), edge(["b", "c"], "d", wait_for="all")]
    flows += [branch("a", [{"expression": state_is("pick", "c"), "result": "c"}, {"default": "END"}]), edge("d", "END")]
    found = refusals(stategraph("Mixed", flows, {"field_name": "pick", "type": "str"}))
    assert (
        len(found) == 1 and "(not always: 'c')" in found[0] and found[0].startswith("flows[6].flow_parameter.wait_for")
    )


def test_joins_that_cannot_starve_pass():
    load_spec(starving(False, targets=["b", "c", "d"]), kenkenpa_registry())  # every outcome runs all three
    fan = stategraph(
        "Fan",
        [node(n) for n in "abcd"]
        + [edge("START", "a"), edge("a", ["b", "c"]), edge(["b", "c"], "d", wait_for="all"), edge("d", "END")],
    )
    assert_steps(updates(compile_in(None, fan), {"log": []}), [logged("a"), logged("b", "c"), logged("d")])
    chain = copy.deepcopy(fan)
    chain["flows"][5] = edge("a", "b")
    chain["flows"].append(edge("b", "c"))
    load_spec(chain, kenkenpa_registry())  # 'a' runs 'b' and then 'c': both always run


def test_wait_for_is_validated():
    data = simple(edge("a", "b", wait_for="all"))
    assert (
        "flows[5].flow_parameter.wait_for: wait_for: all needs a list start_key of two or more nodes to wait for"
        in refusals(data)
    )
    data = simple(edge(["START", "a"], "b", wait_for="all"))
    assert (
        "flows[5].flow_parameter.start_key[0]: START cannot be part of a join (wait_for: all); use a separate edge from START"
        in refusals(data)
    )
    data = simple(edge(["a", "b"], "b", wait_for="any"))
    assert refusals(data)[0] == "flows[5].flow_parameter.wait_for: expected 'all' or null, got str 'any'"


def test_json_schema_knows_compat_and_wait_for():
    jsonschema = pytest.importorskip("jsonschema")
    validator = jsonschema.Draft202012Validator(json_schema())
    fan = json.loads(json.dumps(simple(edge(["a", "b"], "END", wait_for="all"))).replace('"graph_type"', '"kind"'))
    fan["compat"] = "kenkenpa"
    assert not list(validator.iter_errors(fan))
    assert list(validator.iter_errors({**fan, "compat": "kenkenpaa"}))
    fan["flows"][5]["flow_parameter"]["wait_for"] = "some"
    assert list(validator.iter_errors(fan))


def test_cli_compat_flag(tmp_path, capsys):
    data = simple()
    data["author"] = "me"
    path = tmp_path / "g.json"
    path.write_text(json.dumps(data))
    reg = "kenkenpa_helpers:kenkenpa_registry"
    assert graph_cli.graph_main(["graph", "validate", str(path), "--registry", reg]) == 2
    assert "author: unknown key" in capsys.readouterr().err and "--compat kenkenpa" in COMPAT_HINT
    assert graph_cli.graph_main(["graph", "validate", str(path), "--registry", reg, "--compat", "kenkenpa"]) == 0
    out = capsys.readouterr()
    assert out.out.startswith("ok: G (2 nodes")
    assert out.err == "warning: author: unknown key ignored (compat: kenkenpa)\n"
    starve = tmp_path / "starve.json"
    starve.write_text(json.dumps(starving(False)))
    assert graph_cli.graph_main(["graph", "validate", str(starve), "--registry", reg]) == 2
    assert "this join can starve" in capsys.readouterr().err
