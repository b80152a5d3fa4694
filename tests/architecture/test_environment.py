"""One module reads the environment: ``aya_lab.settings``. No other module of the package reads or
writes ``os.environ`` or calls ``os.getenv``/``putenv``/``unsetenv`` (not for the variables of other
tools either: those it reads, ``HF_HUB_OFFLINE``, ``SACREBLEU_SEED`` and ``TQDM_DISABLE``, are settings
too). Parsed with ``ast``; nothing is imported."""

from __future__ import annotations

import ast

from tests.architecture.package_scan import PACKAGE, lines_outside

SETTINGS_MODULE = PACKAGE / "settings.py"
ENVIRONMENT = {"environ", "environb", "getenv", "getenvb", "putenv", "unsetenv"}


def environment_uses(tree: ast.Module) -> list[int]:
    """Lines that touch the process environment through ``os`` (attribute or ``from os import``)."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in ENVIRONMENT:
            if isinstance(node.value, ast.Name) and node.value.id == "os":
                lines.append(node.lineno)
        elif isinstance(node, ast.ImportFrom) and node.module == "os":
            if any(alias.name in ENVIRONMENT for alias in node.names):
                lines.append(node.lineno)
    return lines


def test_only_the_settings_module_touches_the_environment():
    found = lines_outside(SETTINGS_MODULE, environment_uses)
    assert not found, "environment read or written outside aya_lab/settings.py:\n" + "\n".join(found)


def test_the_rule_sees_reads_and_writes():
    for code in (
        "import os\nos.environ.get('AYA_LAB_X')",
        "import os\nos.environ['AYA_LAB_X'] = '1'",
        "import os\nos.environ.setdefault('X', '1')",
        "import os\ndef f():\n    return os.getenv('X')",
        "from os import environ\n",
        "import os\nos.putenv('X', '1')",
    ):
        assert environment_uses(ast.parse(code)), code
    assert not environment_uses(ast.parse("import os\nos.path.join('a', 'b')\nos.cpu_count()"))
    assert environment_uses(ast.parse(SETTINGS_MODULE.read_text(encoding="utf-8")))  # the one place that does
