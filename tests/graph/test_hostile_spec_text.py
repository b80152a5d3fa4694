"""Hostile spec text (issue 25, part 6): control characters and YAML reader errors are one located line;
size limits refuse a huge graph before the checks whose cost grows with it; 20,000 unknown keys print 20
problems and a count; bidi and zero-width characters in names are refused; a look-alike hint shows the
code points; a link to a file that is no spec echoes none of it."""

from __future__ import annotations

from pathlib import Path

import pytest

from aya_lab.graph import SpecError, load_spec, reader
from aya_lab.graph import cli as graph_cli
from aya_lab.graph.errors import MAX_SHOWN_PROBLEMS, SpecFileError
from aya_lab.graph.reader import MAX_SPEC_EDGES, MAX_SPEC_NODES

HEAD = """kind: stategraph
flow_parameter:
  name: G
  state:
    - {field_name: visited, type: list, reducer: operator.add}
flows:
"""


def node(name: str) -> str:
    return f'  - {{kind: node, flow_parameter: {{name: "{name}", factory: test.record.v1}}}}\n'


def edge(start: str, end: str) -> str:
    return f'  - {{kind: edge, flow_parameter: {{start_key: "{start}", end_key: "{end}"}}}}\n'


def chain(n: int) -> str:
    return (
        "".join(node(f"n{i}") for i in range(n))
        + edge("START", "n0")
        + "".join(edge(f"n{i}", f"n{i + 1}") for i in range(n - 1))
        + edge(f"n{n - 1}", "END")
    )


def spec_file(tmp_path, text: str, name: str = "spec.yaml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def one_line(exc: pytest.ExceptionInfo) -> str:
    assert "\n" not in str(exc.value), str(exc.value)
    return str(exc.value)


@pytest.mark.parametrize(
    ("char", "name"),
    [("\x00", "U+0000 NUL"), ("\x1b", "U+001B ESCAPE"), ("\x07", "U+0007 CONTROL"), ("\x9b", "U+009B CONTROL"),
     ("\x7f", "U+007F DELETE")],
)  # fmt: skip
def test_a_control_character_is_one_located_line(tmp_path, registry, char, name):
    path = spec_file(tmp_path, HEAD + node(f"a{char}b"))
    with pytest.raises(SpecFileError) as exc:
        load_spec(path, registry=registry)
    assert one_line(exc).startswith(f"{path}:7:43: control character {name} in a graph spec")


def test_control_characters_in_json_are_refused_the_same_way(tmp_path, registry):
    path = spec_file(tmp_path, '{"kind": "stategraph",\n "x": "\x00"}', "spec.json")
    with pytest.raises(SpecFileError, match=r"spec\.json:2:8: control character U\+0000 NUL"):
        load_spec(path, registry=registry)


def test_validate_of_proc_environ_is_one_line_that_echoes_nothing(capsys, monkeypatch):
    monkeypatch.setenv("AYA_SECRET_PROBE", "hunter2")
    assert graph_cli.graph_main(["graph", "validate", "/proc/self/environ"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "control character U+0000 NUL" in err and "hunter2" not in err


def test_a_link_to_a_file_that_is_no_spec_echoes_none_of_it(tmp_path, registry):
    secret = tmp_path / "passwd"
    secret.write_text("root:x:0:0:SECRET-FIRST-LINE:/root:/bin/bash\ndaemon:x:1:1::/:/bin/false\n")
    link = tmp_path / "spec.yaml"
    link.symlink_to(secret)
    with pytest.raises(SpecError) as exc:
        load_spec(link, registry=registry)
    assert "SECRET" not in str(exc.value) and "x:0:0" not in str(exc.value)
    assert "expected a mapping with a 'kind' key, got a string" in str(exc.value)


def test_too_many_nodes_is_refused_before_the_checks(tmp_path, registry):
    path = spec_file(tmp_path, HEAD + chain(MAX_SPEC_NODES + 1))
    with pytest.raises(SpecFileError) as exc:
        load_spec(path, registry=registry)
    assert one_line(exc) == (
        f"{path}: {MAX_SPEC_NODES + 1} nodes, over the limit of {MAX_SPEC_NODES} for a graph spec; "
        "split the graph into smaller specs, or build it in Python"
    )


def test_too_many_edges_is_refused_counting_list_keys(tmp_path, registry):
    ends = ", ".join(f"n{i}" for i in range(50))
    text = (
        HEAD
        + chain(50)
        + "".join(f"  - {{kind: edge, flow_parameter: {{start_key: n{i}, end_key: [{ends}]}}}}\n" for i in range(30))
    )
    with pytest.raises(SpecFileError, match=rf"1551 edges, over the limit of {MAX_SPEC_EDGES}"):
        load_spec(spec_file(tmp_path, text), registry=registry)


def test_a_graph_at_the_limits_still_loads(tmp_path, registry):
    spec = load_spec(spec_file(tmp_path, HEAD + chain(MAX_SPEC_NODES)), registry=registry)
    assert len(spec.node_names()) == MAX_SPEC_NODES


def test_twenty_thousand_unknown_keys_print_twenty_problems_and_a_count(tmp_path, registry):
    keys = "".join(f"k{i}: 1\n" for i in range(20_000))
    path = spec_file(tmp_path, HEAD.replace("flows:\n", keys + "flows:\n") + chain(2))
    with pytest.raises(SpecError) as exc:
        load_spec(path, registry=registry)
    lines = str(exc.value).splitlines()
    assert len(exc.value.problems) == 20_000 and len(lines) == MAX_SHOWN_PROBLEMS + 2
    assert lines[0] == f"graph spec in {path} has 20000 problems:"
    assert lines[1].startswith("  k0: unknown key (valid keys: kind, compat, flow_parameter, flows)")
    assert lines[-1] == (
        f"  ... and {20_000 - MAX_SHOWN_PROBLEMS} more; run `aya-lab graph validate {path} --all` to see all 20000"
    )


def test_unknown_node_references_stop_costing_hints_once_twenty_are_found(tmp_path, registry):
    text = (
        HEAD + chain(MAX_SPEC_NODES) + "".join(edge(f"x{i}", "n0") for i in range(MAX_SPEC_EDGES - MAX_SPEC_NODES - 1))
    )
    with pytest.raises(SpecError) as exc:
        load_spec(spec_file(tmp_path, text), registry=registry)
    shown = str(exc.value).splitlines()
    assert len(shown) == MAX_SHOWN_PROBLEMS + 2 and "unknown node 'x0'" in shown[1]
    assert "n10, n100" in shown[1] and ", ...; or START)" in shown[1]  # the node list is cut at 20 names


@pytest.mark.parametrize(
    ("name", "code_point"),
    [("ag\u202eent", "U+202E RIGHT-TO-LEFT OVERRIDE"), ("age\u200bnt", "U+200B ZERO WIDTH SPACE"),
     ("a\u2066gent", "U+2066 LEFT-TO-RIGHT ISOLATE"), ("ag\u00a0ent", "U+00A0 NO-BREAK SPACE"),
     ("agent\u200d", "U+200D ZERO WIDTH JOINER")],
)  # fmt: skip
def test_bidi_and_zero_width_characters_in_names_are_refused(tmp_path, registry, name, code_point):
    text = HEAD + node(name) + edge("START", name) + edge(name, "END")
    with pytest.raises(SpecError) as exc:
        load_spec(spec_file(tmp_path, text), registry=registry)
    assert [p.path for p in exc.value.problems] == ["flows[0].flow_parameter.name"]  # one problem, no cascade
    assert f"holds {code_point}: invisible or control characters" in str(exc.value)


def test_a_hidden_character_in_a_state_field_or_graph_name_is_refused(tmp_path, registry):
    text = HEAD.replace("name: G", 'name: "G\u200b"').replace("field_name: visited", 'field_name: "vis\u202eited"')
    with pytest.raises(SpecError) as exc:
        load_spec(spec_file(tmp_path, text + chain(1)), registry=registry)
    paths = [p.path for p in exc.value.problems]
    assert "flow_parameter.name" in paths and "flow_parameter.state[0].field_name" in paths


def test_a_look_alike_suggestion_shows_the_code_points(tmp_path, registry):
    text = HEAD + node("agent") + edge("START", "\u0430gent") + edge("agent", "END")
    with pytest.raises(SpecError) as exc:
        load_spec(spec_file(tmp_path, text), registry=registry)
    assert (
        "unknown node 'аgent' (did you mean 'agent'? They look alike but differ: 'аgent' has U+0430 CYRILLIC "
        "SMALL LETTER A where 'agent' has U+0061 LATIN SMALL LETTER A)"
    ) in str(exc.value)


def test_an_ascii_typo_gets_the_plain_hint(tmp_path, registry):
    text = HEAD + node("agent") + edge("START", "agnet") + edge("agent", "END")
    with pytest.raises(SpecError, match=r"unknown node 'agnet' \(did you mean 'agent'\?\)"):
        load_spec(spec_file(tmp_path, text), registry=registry)


def test_the_libyaml_path_reads_every_spec_as_the_pure_python_reader_does():
    root = Path(reader.__file__).resolve().parents[2]
    files = sorted((root / "aya_lab" / "graphs").glob("*.yaml")) + sorted((root / "tests" / "graph").rglob("*.yaml"))
    assert reader._FAST is not None and len(files) > 5
    for path in files:
        text = path.read_text(encoding="utf-8")
        assert reader._parse_yaml(text, str(path), path.name) == reader._parse_yaml_slowly(text, str(path), path.name)
