"""Hostile specs are refused fast (issue 11): YAML anchors and aliases, size and depth limits, overlay
bases confined to their folder, bases that are not mappings, and loops that can never reach END.

Every refusal is one line naming the file (and the line and column where the parser was)."""

from __future__ import annotations

import json

import pytest
from graph_helpers import SPECS

from aya_lab.graph import SpecError, load_spec, read_spec_data
from aya_lab.graph import cli as graph_cli
from aya_lab.graph.errors import SpecFileError
from aya_lab.graph.reader import BUILTIN_GRAPHS, MAX_SPEC_BYTES, MAX_SPEC_DEPTH, MAX_SPEC_ITEMS, read_spec_file

HEAD = """kind: stategraph
flow_parameter:
  name: Bomb
  state:
    - {field_name: visited, type: list, reducer: operator.add}
flows:
  - kind: node
    flow_parameter: {name: a, factory: test.record.v1}
    factory_parameter:
"""
TAIL = """  - kind: edge
    flow_parameter: {start_key: START, end_key: a}
  - kind: edge
    flow_parameter: {start_key: a, end_key: END}
"""


def billion_laughs() -> str:
    """The classic alias bomb, ~1 KB: nine levels of nine aliases each, 9**9 strings once expanded."""
    rows = ['      l0: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for k in range(1, 10):
        rows.append(f"      l{k}: &l{k} [" + ", ".join([f"*l{k - 1}"] * 9) + "]")
    return HEAD + "\n".join(rows) + "\n" + TAIL


def one_line(exc: pytest.ExceptionInfo) -> str:
    text = str(exc.value)
    assert "\n" not in text, text
    return text


def test_the_billion_laughs_spec_is_refused_at_the_parser(tmp_path, registry):
    path = tmp_path / "bomb.yaml"
    path.write_text(billion_laughs(), encoding="utf-8")
    assert len(path.read_bytes()) < 1200
    with pytest.raises(SpecFileError) as exc:  # the parser itself refuses: nothing is composed past it
        read_spec_file(path)
    assert one_line(exc).startswith(f"{path}:10:11: YAML anchor &l0 is not allowed")
    assert "write the value out instead of using an alias" in str(exc.value)
    with pytest.raises(SpecError, match="write the value out instead of using an alias"):
        load_spec(path, registry=registry)


@pytest.mark.parametrize(
    ("body", "where", "what"),
    [
        ("      x: *nowhere\n", "10:10", "YAML alias *nowhere"),
        ("      x: &one 1\n", "10:10", "YAML anchor &one"),
        ("      base: &b {k: 1}\n      <<: *b\n", "10:13", "YAML anchor &b"),
    ],
)
def test_any_anchor_or_alias_is_refused_with_its_location(tmp_path, registry, body, where, what):
    path = tmp_path / "alias.yaml"
    path.write_text(HEAD + body + TAIL, encoding="utf-8")
    with pytest.raises(SpecFileError) as exc:
        load_spec(path, registry=registry)
    assert one_line(exc) == (
        f"{path}:{where}: {what} is not allowed in a graph spec; write the value out instead of using an alias"
    )


def test_the_same_spec_written_out_loads(tmp_path, registry):
    path = tmp_path / "plain.yaml"
    path.write_text(HEAD + '      l0: ["lol", "lol"]\n      l1: [["lol", "lol"], ["lol", "lol"]]\n' + TAIL)
    spec = load_spec(path, registry=registry)
    assert spec.flows[0].factory_parameter["l1"] == [["lol", "lol"], ["lol", "lol"]]


def test_a_dict_built_as_a_bomb_is_refused_by_its_value_budget(registry):
    level: object = "lol"
    for _ in range(6):  # 10**6 leaves through shared references: over the budget, cheap to build
        level = [level] * 10
    data = yaml_spec_dict()
    data["flows"][0]["factory_parameter"] = {"bomb": level}
    with pytest.raises(SpecFileError) as exc:
        load_spec(data, registry=registry)
    assert f"more than {MAX_SPEC_ITEMS} values" in one_line(exc)


def yaml_spec_dict() -> dict:
    return read_spec_data(SPECS / "routing.yaml")[0]


# -- size and depth --------------------------------------------------------------------------------


def test_a_file_over_the_size_limit_is_refused_before_parsing(tmp_path, registry):
    path = tmp_path / "big.yaml"
    path.write_text(HEAD + "      pad: '" + "x" * MAX_SPEC_BYTES + "'\n" + TAIL, encoding="utf-8")
    with pytest.raises(SpecFileError) as exc:
        load_spec(path, registry=registry)
    assert one_line(exc) == (
        f"{path}: larger than 256 KiB, the limit for a graph spec; split it into a base spec and overlays, "
        "or remove what it does not use"
    )


@pytest.mark.parametrize("suffix", [".yaml", ".json"])
def test_deep_nesting_is_a_located_error_not_a_recursion_error(tmp_path, registry, suffix):
    path = tmp_path / f"deep{suffix}"
    deep = "[" * 5000 + "]" * 5000
    if suffix == ".json":
        path.write_text('{"kind": "stategraph",\n "flows": ' + deep + "}", encoding="utf-8")
        where = f"2:{10 + MAX_SPEC_DEPTH}"  # the 32nd bracket under the top-level object is column 42
    else:
        path.write_text("kind: stategraph\nflows: " + deep + "\n", encoding="utf-8")
        where = f"2:{8 + MAX_SPEC_DEPTH}"  # the scanner stops at the 33rd bracket, ahead of the composer
    with pytest.raises(SpecFileError) as exc:
        load_spec(path, registry=registry)
    assert (
        one_line(exc) == f"{path}:{where}: nested more than 32 levels deep; a graph spec is shallow: flatten this value"
    )


def test_deep_nesting_in_a_dict_names_the_path(registry):
    data = yaml_spec_dict()
    value: object = 1
    for _ in range(3000):
        value = {"k": value}
    data["flows"][0]["factory_parameter"] = value
    with pytest.raises(SpecFileError) as exc:
        load_spec(data, registry=registry)
    assert one_line(exc).startswith("<spec>: flows[0].factory_parameter.k.k.")
    assert "nested more than 32 levels deep" in str(exc.value)


def test_unreadable_files_are_one_line_errors_that_echo_nothing(tmp_path, registry):
    latin = tmp_path / "latin.yaml"
    latin.write_bytes("kind: stategraph\nflow_parameter: {name: Réunion}\n".encode("latin-1"))
    with pytest.raises(SpecFileError) as exc:
        load_spec(latin, registry=registry)
    assert one_line(exc) == f"{latin}: not UTF-8 text (byte 0xe9 at offset 41); re-save it as UTF-8"
    broken = tmp_path / "broken.yaml"
    broken.write_text("kind: stategraph\nflows: [unclosed, SECRET-TOKEN\nnext: 1\n", encoding="utf-8")
    with pytest.raises(SpecFileError) as exc:
        load_spec(broken, registry=registry)
    assert one_line(exc).startswith(f"{broken}:3:5: cannot parse broken.yaml: ")
    assert "SECRET" not in str(exc.value) and "fix the YAML syntax there" in str(exc.value)
    broken_json = tmp_path / "broken.json"
    broken_json.write_text('{"kind": "stategraph",\n "flows": [1 2]}', encoding="utf-8")
    with pytest.raises(SpecFileError, match=r"broken\.json:2:14: cannot parse broken\.json: Expecting ','"):
        load_spec(broken_json, registry=registry)


# -- overlay bases ---------------------------------------------------------------------------------


@pytest.fixture
def folders(tmp_path):
    room, outside = tmp_path / "room", tmp_path / "outside"
    room.mkdir()
    outside.mkdir()
    (outside / "secret.yaml").write_text("SECRET-FIRST-LINE: of another file\n", encoding="utf-8")
    (outside / "secret.txt").write_text("SECRET-FIRST-LINE of another file\n", encoding="utf-8")
    return room, outside


@pytest.mark.parametrize(
    "base",
    [
        "../../../../../../../../etc/passwd",
        "/etc/passwd",
        "../outside/secret.yaml",
        "../outside/secret.txt",
        "sub/../../outside/secret.yaml",
    ],
)
def test_a_base_outside_the_overlay_folder_is_refused_without_reading_it(folders, registry, base):
    room, _ = folders
    path = room / "overlay.yaml"
    path.write_text(f"base: {base}\nchanges:\n  - remove_node: a\n", encoding="utf-8")
    with pytest.raises(SpecFileError) as exc:
        load_spec(path, registry=registry)
    text = one_line(exc)
    assert text.startswith(f"{path}: base: {base!r} lies outside the overlay's folder")
    assert "SECRET" not in text and "root:" not in text


def test_a_link_out_of_the_overlay_folder_is_refused(folders, registry):
    room, outside = folders
    (room / "base.yaml").symlink_to(outside / "secret.yaml")
    path = room / "overlay.yaml"
    path.write_text("base: base.yaml\n", encoding="utf-8")
    with pytest.raises(SpecFileError, match="lies outside the overlay's folder") as exc:
        load_spec(path, registry=registry)
    assert "SECRET" not in one_line(exc)


def test_a_dict_overlay_is_confined_to_its_base_dir(folders, registry):
    room, _ = folders
    with pytest.raises(SpecFileError, match=r"<overlay>: base: '\.\./outside/secret\.yaml' lies outside"):
        load_spec({"base": "../outside/secret.yaml"}, registry=registry, base_dir=room)


def test_bases_in_the_folder_a_subfolder_or_the_packaged_graphs_still_load(folders, registry):
    room, _ = folders
    (room / "specs").mkdir()
    (room / "specs" / "routing.yaml").write_text((SPECS / "routing.yaml").read_text())
    path = room / "variant.yaml"
    path.write_text("base: specs/routing.yaml\nname: Variant\n", encoding="utf-8")
    assert load_spec(path, registry=registry).name == "Variant"
    packaged = room / "room_variant.yaml"
    packaged.write_text(f"base: {BUILTIN_GRAPHS / 'aya.yaml'}\nname: MyAya\n", encoding="utf-8")
    assert read_spec_data(packaged)[0]["flow_parameter"]["name"] == "MyAya"


@pytest.mark.parametrize("content", ["SECRET a plain string\n", "- SECRET\n- list\n", ""])
def test_a_base_that_is_not_a_mapping_is_one_line_not_an_attribute_error(folders, registry, content):
    room, _ = folders
    (room / "base.yaml").write_text(content, encoding="utf-8")
    path = room / "overlay.yaml"
    path.write_text("base: base.yaml\nchanges:\n  - update_node: a\n    factory_parameter: {x: 1}\n")
    with pytest.raises(SpecFileError) as exc:
        load_spec(path, registry=registry)
    text = one_line(exc)
    assert f"base spec {str(room / 'base.yaml')!r} is a " in text and "not a mapping" in text
    assert "SECRET" not in text


def test_a_base_chain_through_dot_dot_is_still_a_cycle(folders, registry):
    room, _ = folders
    (room / "sub").mkdir()
    (room / "a.yaml").write_text("base: sub/../a.yaml\n", encoding="utf-8")
    with pytest.raises(SpecError, match="overlay cycle"):
        load_spec(room / "a.yaml", registry=registry)


# -- loops that never reach END --------------------------------------------------------------------

LOOP = """kind: stategraph
flow_parameter:
  name: Loop
  state:
    - {field_name: next_node, type: str}
    - {field_name: visited, type: list, reducer: operator.add}
flows:
  - {kind: node, flow_parameter: {name: entry, factory: test.record.v1}}
  - {kind: node, flow_parameter: {name: ping, factory: test.record.v1}}
  - {kind: node, flow_parameter: {name: pong, factory: test.record.v1}}
  - {kind: node, flow_parameter: {name: done, factory: test.record.v1}}
  - {kind: edge, flow_parameter: {start_key: START, end_key: entry}}
  - kind: configurable_conditional_edge
    flow_parameter:
      start_key: entry
      conditions:
        - expression: {eq: [{type: state_value, name: next_node}, ping]}
          result: ping
        - default: done
  - {kind: edge, flow_parameter: {start_key: ping, end_key: pong}}
  - {kind: edge, flow_parameter: {start_key: pong, end_key: ping}}
"""


def test_validate_reports_a_loop_with_no_way_to_end(tmp_path, capsys):
    path = tmp_path / "loop.yaml"
    path.write_text(LOOP, encoding="utf-8")
    code = graph_cli.graph_main(["graph", "validate", str(path), "--registry", "graph_helpers:make_registry"])
    err = capsys.readouterr().err
    assert code == 2
    assert "flows: nodes 'ping', 'pong' can never reach END" in err
    assert "'entry'" not in err and "'done'" not in err  # entry can leave through done; done ends the run


def test_a_loop_with_an_exit_and_a_dead_end_node_validate(tmp_path, registry):
    exit_on_pong = LOOP.replace(
        "  - {kind: edge, flow_parameter: {start_key: pong, end_key: ping}}\n",
        "  - kind: configurable_conditional_edge\n    flow_parameter:\n      start_key: pong\n      conditions:\n"
        "        - expression: {eq: [{type: state_value, name: next_node}, ping]}\n          result: ping\n"
        "        - default: END\n",
    )
    path = tmp_path / "loop_ok.yaml"
    path.write_text(exit_on_pong, encoding="utf-8")
    assert load_spec(path, registry=registry).name == "Loop"


def test_json_specs_are_read_with_the_same_limits(tmp_path, registry):
    path = tmp_path / "routing.json"
    path.write_text(json.dumps(yaml_spec_dict()), encoding="utf-8")
    assert load_spec(path, registry=registry).name == "Routing"
