"""The hostile-input run, group "specs" (issue 37, item 6): hostile graph specs and overlays, given to
``aya-lab graph validate``, to ``aya-lab chat --graph`` and to the loaders. Each case is refused in one
line naming the file (and where in it) and the fix, and creates, changes or removes nothing."""

from __future__ import annotations

import os
import sys
import threading

import pytest

from aya_lab.cli import main
from aya_lab.graph import SpecError, load_spec
from aya_lab.graph.errors import MAX_SHOWN_PROBLEMS
from aya_lab.graph.literals import MAX_INT_DIGITS
from aya_lab.graph.reader import BUILTIN_GRAPHS, MAX_SPEC_BYTES, MAX_SPEC_DEPTH
from aya_lab.room import ChatRoom
from aya_lab.room.errors import RoomError
from tests.fakes import FakeRoomModel
from tests.hostile.harness import assert_one_line, cli_refuses, unchanged

pytestmark = pytest.mark.hostile("specs")

HUGE = "7" * 5000

SPEC = """kind: stategraph
flow_parameter:
  name: G
  state:
    - {field_name: log, type: list, reducer: append_list.v1}
flows:
  - kind: node
    flow_parameter: {name: a, factory: const_update.v1}
    factory_parameter: {update: {log: [1]}}
  - kind: edge
    flow_parameter: {start_key: START, end_key: a}
  - kind: edge
    flow_parameter:
      start_key: a
      end_key: END
"""
"""A valid spec (built-in names only), not a room graph."""


def write(folder, name, text):
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def validate(*argv):
    return ["graph", "validate", *map(str, argv)]


# -- duplicate keys ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "where", "key"),
    [
        (SPEC + "      end_key: END\n", ":16:7:", "flows[2].flow_parameter.end_key (first at line 15)"),
        (SPEC + "flows: []\n", ":16:1:", "duplicate key flows (first at line 6)"),
        (SPEC.replace("{name: a, factory", "{name: a, name: b, factory"), ":8:31:", "flows[0].flow_parameter.name"),
        (
            SPEC.replace("{update: {log: [1]}}", "{update: {}, yes: 1, true: 2}"),
            ":9:45:",
            "flows[0].factory_parameter.true (first at line 9)",
        ),
        (
            SPEC.replace("{update: {log: [1]}}", "{update: {}, 1: a, 0x1: b}"),
            ":9:43:",
            'flows[0].factory_parameter["0x1"]',
        ),
    ],
    ids=["end_key-twice", "flows-twice", "flow-mapping", "yes-and-true", "1-and-0x1"],
)
def test_a_duplicate_yaml_key_is_a_located_line(tmp_path, capsys, text, where, key):
    path = write(tmp_path, "dup.yaml", text)
    with unchanged(tmp_path):
        err = cli_refuses(capsys, validate(path), f"{path}{where}", "duplicate key", key, "remove the other")
    assert "ok" not in err


def test_a_duplicate_key_in_an_overlay_change_names_the_overlay(tmp_path):
    write(tmp_path, "base.yaml", SPEC)
    overlay = write(
        tmp_path,
        "over.yaml",
        "base: base.yaml\nchanges:\n  - update_node: a\n    update_node: a\n    factory_parameter: {}\n",
    )
    with unchanged(tmp_path), pytest.raises(SpecError) as exc:
        load_spec(overlay, check_registry=False)
    assert_one_line(str(exc.value), f"{overlay}:4:5:", "duplicate key changes[0].update_node", "keep one")


# -- integer literals ----------------------------------------------------------------------------------
def test_a_5000_digit_integer_is_one_located_line_not_a_traceback(tmp_path, capsys):
    path = write(tmp_path, "big.yaml", SPEC.replace("log: [1]", f"log: [{HUGE}]"))
    with unchanged(tmp_path):
        cli_refuses(
            capsys, validate(path), f"{path}:9:40:", "flows[0].factory_parameter.update.log[0]", "5000 digits",
            f"limit of {MAX_INT_DIGITS}", "quote it",
        )  # fmt: skip


@pytest.mark.parametrize(
    ("literal", "digits"),
    [(HUGE, 5000), ("-" + "9" * 19, 19), ("0x" + "f" * 5000, 5000), ("1_" * 30 + "1", 31)],
    ids=["5000-digits", "19-digits-negative", "hex-5000", "underscored"],
)
def test_an_integer_over_the_digit_limit_is_refused_in_any_spelling(tmp_path, literal, digits):
    path = write(tmp_path, "big.yaml", SPEC.replace("log: [1]", f"log: [{literal}]"))
    with unchanged(tmp_path), pytest.raises(SpecError) as exc:
        load_spec(path, check_registry=False)
    assert_one_line(str(exc.value), f"{path}:9:", f"has {digits} digits", f"limit of {MAX_INT_DIGITS}")


def test_an_integer_at_the_digit_limit_still_loads(tmp_path):
    path = write(tmp_path, "ok.yaml", SPEC.replace("log: [1]", f"log: [{'9' * MAX_INT_DIGITS}]"))
    assert load_spec(path, check_registry=False).flows[0].factory_parameter["update"]["log"] == [int("9" * 18)]


def test_an_integer_key_over_the_digit_limit_is_refused(tmp_path):
    path = write(tmp_path, "key.yaml", SPEC.replace("{update: {log: [1]}}", f"{{update: {{}}, {'1' * 30}: x}}"))
    with unchanged(tmp_path), pytest.raises(SpecError) as exc:
        load_spec(path, check_registry=False)
    assert_one_line(str(exc.value), f"{path}:9:37:", "at flows[0].factory_parameter has 30 digits", "quote it")


def test_a_5000_digit_integer_in_json_is_located(tmp_path):
    path = write(tmp_path, "big.json", '{"kind": "stategraph",\n "x": ["9", ' + HUGE + "]}")
    with unchanged(tmp_path), pytest.raises(SpecError) as exc:
        load_spec(path, check_registry=False)
    assert_one_line(str(exc.value), f"{path}:2:13:", "5000 digits", f"limit of {MAX_INT_DIGITS}")


def test_a_5000_digit_integer_through_an_overlay_names_the_overlay(tmp_path, capsys):
    write(tmp_path, "base.yaml", SPEC)
    overlay = write(
        tmp_path, "over.yaml", f"base: base.yaml\nchanges:\n  - update_node: a\n    factory_parameter: {{n: {HUGE}}}\n"
    )
    with unchanged(tmp_path):
        cli_refuses(capsys, validate(overlay), f"{overlay}:4:28:", "changes[0].factory_parameter.n", "5000 digits")


def test_a_5000_digit_integer_in_the_base_names_the_base(tmp_path, capsys):
    base = write(tmp_path, "base.yaml", SPEC.replace("log: [1]", f"log: [{HUGE}]"))
    overlay = write(tmp_path, "over.yaml", "base: base.yaml\nname: V\n")
    with unchanged(tmp_path):
        cli_refuses(capsys, validate(overlay), f"{base}:9:40:", "5000 digits")


def test_chat_with_a_5000_digit_graph_creates_no_room(tmp_path, capsys):
    path = write(tmp_path, "big.yaml", SPEC.replace("log: [1]", f"log: [{HUGE}]"))
    with unchanged(tmp_path):
        cli_refuses(
            capsys, ["chat", str(tmp_path / "r.sqlite"), "--graph", str(path), "--model", "fake:ok"], str(path),
            "5000 digits",
        )  # fmt: skip


# -- base: must be a regular file ----------------------------------------------------------------------
def test_a_base_that_is_a_folder_says_so(tmp_path, capsys):
    (tmp_path / "sub").mkdir()
    overlay = write(tmp_path, "over.yaml", "base: sub\nname: V\n")
    with unchanged(tmp_path):
        cli_refuses(capsys, validate(overlay), str(overlay), "is a folder, not a regular file", "name a .yaml")


def refuses_without_blocking(capsys, argv, *needles):
    """``aya-lab ARGV`` run in a thread: refused (status 2, one line) within 10 s; opening a named pipe
    with no writer would block it forever."""
    status: list[int] = []
    worker = threading.Thread(target=lambda: status.append(main(argv)), daemon=True)
    worker.start()
    worker.join(10)
    assert status == [2], "blocked (opened the named pipe?)" if worker.is_alive() else status
    err = capsys.readouterr().err
    assert err.startswith("error: ")
    assert_one_line(err, *needles)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_base_that_is_a_named_pipe_is_refused_without_opening_it(tmp_path, capsys):
    os.mkfifo(tmp_path / "pipe.yaml")
    overlay = write(tmp_path, "over.yaml", "base: pipe.yaml\nname: V\n")
    with unchanged(tmp_path):
        refuses_without_blocking(capsys, validate(overlay), str(overlay), "is a named pipe (FIFO), not a regular file")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_named_pipe_given_as_the_spec_is_refused_without_opening_it(tmp_path, capsys):
    os.mkfifo(tmp_path / "pipe.yaml")
    with unchanged(tmp_path):
        refuses_without_blocking(capsys, validate(tmp_path / "pipe.yaml"), "is a named pipe (FIFO)", ".json spec file")


def test_a_folder_given_as_the_graph_of_a_chat_creates_no_room(tmp_path, capsys):
    (tmp_path / "graphs").mkdir()
    argv = ["chat", str(tmp_path / "r.sqlite"), "--graph", str(tmp_path / "graphs"), "--model", "fake:ok"]
    with unchanged(tmp_path):
        cli_refuses(capsys, argv, "graphs", "is a folder, not a regular file")


# -- --registry takes only the project's registries ---------------------------------------------------
@pytest.mark.parametrize("ref", ["os:system", "antigravity:geohash", "aya_lab.room.nodes:ingest", "builtins"])
def test_registry_refuses_anything_but_the_projects_registries(tmp_path, capsys, ref):
    path = write(tmp_path, "g.yaml", SPEC)
    with unchanged(tmp_path):
        cli_refuses(capsys, [*validate(path), "--registry", ref], repr(ref), "use one of: aya,", "entry-point group")
    assert "antigravity" not in sys.modules  # nothing named was imported


def test_registry_accepts_the_rooms_names(tmp_path, capsys):
    path = write(tmp_path, "g.yaml", SPEC)
    assert main([*validate(path), "--registry", "aya"]) == 0
    assert capsys.readouterr().out.startswith("ok: G (1 nodes")


# -- many problems: the CLI says how to see them all ---------------------------------------------------
def test_many_unknown_keys_say_how_to_see_them_all(tmp_path, capsys):
    n = MAX_SHOWN_PROBLEMS + 5
    path = write(tmp_path, "keys.yaml", "".join(f"k{i}: 1\n" for i in range(n)) + SPEC)
    with unchanged(tmp_path):
        assert main(validate(path)) == 2
        lines = capsys.readouterr().err.splitlines()
        assert lines[-1] == f"  ... and 5 more; run `aya-lab graph validate {path} --all` to see all {n}"
        assert main([*validate(path), "--all"]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == n + 1 and lines[-1].startswith(f"  k{n - 1}: unknown key")


# -- a valid graph that is not a room graph ---------------------------------------------------------------
def test_chat_with_a_graph_that_is_no_room_graph_is_refused_before_any_file(tmp_path, capsys):
    path = write(tmp_path, "g.yaml", SPEC)
    argv = ["chat", str(tmp_path / "r.sqlite"), "--graph", str(path), "--model", "fake:ok", "--user", "kofi:en"]
    with unchanged(tmp_path):
        cli_refuses(
            capsys, argv, f"graph '{path}' is not a room graph", "state fields users, messages", "aya_ingest.v1",
            "base: aya.yaml",
        )  # fmt: skip


def test_chatroom_open_refuses_an_overlay_without_the_supervisor(tmp_path):
    overlay = write(
        tmp_path,
        "no_aya.yaml",
        f"base: {BUILTIN_GRAPHS / 'aya.yaml'}\nchanges:\n  - replace_node: supervisor\n"
        "    factory: const_update.v1\n    factory_parameter: {update: {}}\n",
    )
    with unchanged(tmp_path), pytest.raises(RoomError) as exc:
        ChatRoom.open(tmp_path / "r.sqlite", model=FakeRoomModel(default="x"), graph=overlay)
    assert_one_line(str(exc.value), str(overlay), "lacks a node for aya_supervisor.v1")
    assert "state field" not in str(exc.value)


# -- other hostile spec text ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("content", "needles"),
    [
        (b"\x89PNG\r\n\x1a\n\x00\x00\xff\xfe garbage", ("not UTF-8 text (byte 0x89 at offset 0)", "re-save it")),
        ("kind: stategraph\n".encode("utf-16"), ("not UTF-8 text (byte 0xff", "re-save it as UTF-8")),
        (b"kind: stategraph\nflows:\n\t- kind: node\n", (":3:1:", "cannot parse", "fix the YAML syntax there")),
        (b"- kind: stategraph\n- flows: []\n", ("expected a mapping",)),
        (b"[" * 10_000, (f"nested more than {MAX_SPEC_DEPTH} levels deep", "flatten this value")),
        (b"a: &x [1]\nb: *x\n", (":1:4:", "YAML anchor &x is not allowed", "write the value out")),
        (
            b"# nothing\n" * (MAX_SPEC_BYTES // 10 + 1),
            ("larger than 256 KiB", "split it into a base spec and overlays"),
        ),
    ],
    ids=["binary", "utf-16", "tab-indent", "a-list", "10000-brackets", "anchor", "huge"],
)
def test_hostile_spec_text_is_one_located_line(tmp_path, capsys, content, needles):
    path = tmp_path / "spec.yaml"
    path.write_bytes(content)
    with unchanged(tmp_path):
        cli_refuses(capsys, validate(path), str(path), *needles)


@pytest.mark.parametrize(
    ("old", "new", "needles"),
    [
        ("reducer: append_list.v1", "reducer: append_lst.v1", ("state[0].reducer: unknown reducer", "append_list.v1")),
        ("type: list,", "type: lisst,", ("state[0].type: unknown type 'lisst'", "did you mean 'list'")),
        ("factory: const_update.v1", "factory: os.system", ("flows[0].flow_parameter.factory: unknown factory",)),
    ],
    ids=["reducer", "type", "factory"],
)
def test_an_unknown_name_is_one_located_line_with_the_fix(tmp_path, capsys, old, new, needles):
    path = write(tmp_path, "g.yaml", SPEC.replace(old, new))
    with unchanged(tmp_path):
        cli_refuses(capsys, validate(path), f"graph spec in {path}: ", *needles)


def test_an_operand_naming_an_unregistered_function_is_one_located_line(tmp_path, capsys):
    cond = (
        "  - kind: configurable_conditional_edge\n    flow_parameter:\n      start_key: a\n      conditions:\n"
        "        - expression: {eq: [{type: function, name: os.system, args: {}}, 1]}\n          result: END\n"
        "        - default: END\n"
    )
    path = write(tmp_path, "g.yaml", SPEC.split("  - kind: edge\n    flow_parameter:\n      start_key: a")[0] + cond)
    with unchanged(tmp_path):
        cli_refuses(capsys, validate(path), f"graph spec in {path}: flows[2]", "os.system")
