"""Every setting aya_lab reads from the environment, in one frozen :class:`Settings`.

:func:`settings` returns the current settings: the ``AYA_LAB_*`` variables (and the three variables of
other tools that the package reads: ``HF_HUB_OFFLINE``, ``SACREBLEU_SEED``, ``TQDM_DISABLE``), each
parsed and checked, with any overrides applied. A bad value is a one-line :class:`SettingsError`
naming the variable, the value and the fix. Code that wants another value passes it instead of writing
the environment: :func:`configure` for the rest of the process (a notebook's setup), :func:`use_settings`
for a ``with`` block (tests, a notebook cell). An override wins over the environment until
:func:`reset_settings` drops it (or the block ends); the overrides are process-wide, so the threads a
graph runs its nodes in see them too.

**Read once.** The parsed object is kept with the raw values it was parsed from. Each call compares
those raw values (one dictionary lookup per variable) and parses again only when one of them changed,
so a test's ``monkeypatch.setenv`` or a notebook cell that sets a variable still takes effect, while a
generation never re-parses anything.

This is the only module of the package that touches ``os.environ`` (an architecture test enforces it),
and ``docs/SETTINGS.md`` is generated from :class:`Settings` by :func:`settings_table` (a test keeps the
committed page equal to it; ``python -m aya_lab.settings > docs/SETTINGS.md`` rewrites it).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Literal

from aya_lab.errors import AyaLabError

__all__ = [
    "Settings",
    "SettingsError",
    "configure",
    "reset_settings",
    "settings",
    "DEFAULT_DIRECTION_ADAPTERS",
    "DEFAULT_ROLE_SPECS",
    "ROLES",
    "settings_table",
    "use_settings",
    "variables",
]

DEFAULT_ROLE_SPECS: Mapping[str, str] = {"translator": "gemma3-270m", "aya": "smollm2"}
"""Each role's default model spec, chosen by ``benchmarks/measure_roles.py`` (docs/MODELS.md, "A model per
role"): the one source of truth for the loader, ``ChatRoom.open``, the demo, the CLI's help texts and the
settings table."""
ROLES: tuple[str, ...] = tuple(DEFAULT_ROLE_SPECS)
"""The roles a room and the evaluators name a model for (each has a default, and a ``model_<role>``
setting: :meth:`Settings.role_models`)."""

DEFAULT_DIRECTION_ADAPTERS: Mapping[str, tuple[str, str]] = {}
"""Translation directions with a measured adapter: ``pair -> (base spec, folder under data/adapters)``.
An adapter is listed only with its own record on the room's kind of text: above both floors,
significantly, on two unseen sets, one of them workplace chat, and a translator calibration of its own
(``data/calibration/translator-<spec>.json``) whose labelled drafts into the target include faithful ones. None
qualifies: the Swahili → English adapter clears both floors on two unseen news sets (notebook 08) but wrote no
faithful draft of the 40 Swahili chat messages of the fifth and sixth unseen runs (``data/adversarial/README.md``),
and the one trained with more chat pairs clears both chrF floors on chat and MAFAND test yet wrote 3 faithful drafts
of 160 chat messages (notebook 09). The room's translator uses a listed
adapter for its direction when the translator role runs the adapter's base
(:func:`aya_lab.models.directions.direction_defaults`)."""

_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")


class SettingsError(AyaLabError, ValueError):
    """An environment variable (or an override) has a value aya_lab cannot use."""


Parse = Callable[[str, str], Any]


def _path(name: str, raw: str) -> Path:
    return Path(raw).expanduser()


def _text(name: str, raw: str) -> str:
    return raw


def _choice(*choices: str, default: str) -> Parse:
    def parse(name: str, raw: str) -> str:
        value = raw.lower()
        if value not in choices:
            raise SettingsError(
                f"{name}={raw!r} is not one of {', '.join(choices)}; set one of them, or unset it for {default}"
            )
        return value

    return parse


def _count(name: str, raw: str) -> int:
    if not raw.isdigit() or int(raw) < 1:
        raise SettingsError(f"{name}={raw!r} is not a positive whole number; set e.g. {name}=2, or unset it")
    return int(raw)


def _switch(name: str, raw: str) -> bool:
    if raw.lower() not in _TRUE + _FALSE:
        raise SettingsError(f"{name}={raw!r} is neither on nor off; set {name}=1 (on) or {name}=0 (off)")
    return raw.lower() in _TRUE


def _hf_flag(name: str, raw: str) -> bool:
    """Read as huggingface_hub reads it: a true spelling is on, anything else is off."""
    return raw.lower() in _TRUE


def _tqdm_flag(name: str, raw: str) -> bool:
    """Read as tqdm reads ``TQDM_DISABLE``: anything but ``0``/``false`` is on."""
    return raw.lower() not in ("0", "false")


def _seed(name: str, raw: str) -> int | None:
    if raw.lower() == "none":
        return None
    try:
        return int(raw)
    except ValueError:
        raise SettingsError(
            f"{name}={raw!r} is not a whole number; set e.g. {name}=12345, or {name}=none to draw from the OS"
        ) from None


def _var(env: str, parse: Parse, default: Any, shown: str, doc: str) -> Any:
    """A :class:`Settings` field read from ``env``; ``shown`` is its default as the table prints it."""
    return field(default=default, metadata={"env": env, "parse": parse, "shown": shown, "doc": doc})


@dataclass(frozen=True)
class Settings:
    """aya_lab's settings; each field is read from one environment variable (its metadata says which).

    ``None`` means "unset": the function that uses the setting supplies the default the table shows.
    Build one with :meth:`from_env`, change one with :meth:`with_changes` (values checked as the
    environment's are).
    """

    data_dir: Path | None = _var(
        "AYA_LAB_DATA_DIR", _path, None, "unset (Makefile: `../shared/data`)",
        "external parallel data (NTREX-128, FLORES v1, MAFAND); `aya-lab data fetch` writes there",
    )  # fmt: skip
    cache_dir: Path | None = _var(
        "AYA_LAB_CACHE_DIR", _path, None, "`~/.cache/aya_lab`",
        "the assembled Gemma GGUF, converted fp32 copies (`~transformers`), caches",
    )  # fmt: skip
    generation_cache: Path | None = _var(
        "AYA_LAB_GENERATION_CACHE", _path, None, "`$AYA_LAB_CACHE_DIR/generations.sqlite`",
        "the generation cache file (notebooks: see `aya_lab.notebook`)",
    )  # fmt: skip
    cache_mode: Literal["off", "readwrite", "replay"] = _var(
        "AYA_LAB_CACHE_MODE", _choice("off", "readwrite", "replay", default="readwrite"), "readwrite", "`readwrite`",
        "`readwrite`, `replay` (a cache miss is an error; nbval uses it) or `off`",
    )  # fmt: skip
    runs_dir: Path | None = _var(
        "AYA_LAB_RUNS_DIR", _path, None, "`runs/` in the repository",
        "where notebooks keep their rooms and result files",
    )  # fmt: skip
    model: str | None = _var(
        "AYA_LAB_MODEL", _text, None, "unset: each role's default",
        "model spec for every role (CLI, room, notebooks)",
    )  # fmt: skip
    model_translator: str | None = _var(
        "AYA_LAB_MODEL_TRANSLATOR", _text, None, f"`{DEFAULT_ROLE_SPECS['translator']}`",
        "the translator role's model spec (over `AYA_LAB_MODEL`)",
    )  # fmt: skip
    model_aya: str | None = _var(
        "AYA_LAB_MODEL_AYA", _text, None, f"`{DEFAULT_ROLE_SPECS['aya']}`",
        "Aya's model spec (over `AYA_LAB_MODEL`)",
    )  # fmt: skip
    threads: int | None = _var(
        "AYA_LAB_THREADS", _count, None, "the physical cores",
        "CPU threads of a llama.cpp model (Ray actors: one each)",
    )  # fmt: skip
    engine: Literal["local", "ray"] = _var(
        "AYA_LAB_ENGINE", _choice("local", "ray", default="local"), "local", "`local`",
        "where cache misses are generated: `local` or `ray` (the `--engine` of `aya-lab eval`)",
    )  # fmt: skip
    ray_address: str | None = _var(
        "AYA_LAB_RAY_ADDRESS", _text, None, "unset: a local cluster started on first use",
        "the Ray cluster: `auto` or `ray://HOST:PORT`",
    )  # fmt: skip
    fewshot_dir: Path | None = _var(
        "AYA_LAB_FEWSHOT_DIR", _path, None, "`data/fewshot`",
        "the few-shot example pools of completion prompts",
    )  # fmt: skip
    allow_downloads: bool = _var(
        "AYA_LAB_ALLOW_DOWNLOADS", _switch, False, "`0` (offline)",
        "`1`: a hub id missing from the local Hugging Face cache may be downloaded",
    )  # fmt: skip
    fetch_base_url: str | None = _var(
        "AYA_LAB_FETCH_BASE_URL", _text, None, "`https://raw.githubusercontent.com`",
        "where `aya-lab data fetch` downloads the public test sets from (a mirror)",
    )  # fmt: skip
    hf_hub_offline: bool = _var(
        "HF_HUB_OFFLINE", _hf_flag, False, "unset",
        "`1` forbids downloads even with `AYA_LAB_ALLOW_DOWNLOADS=1` (huggingface_hub's own variable)",
    )  # fmt: skip
    sacrebleu_seed: int | None = _var(
        "SACREBLEU_SEED", _seed, 12345, "`12345`",
        "the bootstrap seed of confidence intervals; `none` draws from the OS (sacrebleu's own variable)",
    )  # fmt: skip
    tqdm_disable: bool = _var(
        "TQDM_DISABLE", _tqdm_flag, False, "unset",
        "`1` silences every progress bar (`setup_notebook()` sets this setting; tqdm's own variable)",
    )  # fmt: skip

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        """Parse every variable of ``environ`` (default: ``os.environ``); a bad value is a :class:`SettingsError`."""
        env = os.environ if environ is None else environ
        return cls(**{f.name: _parse(f.name, env.get(f.metadata["env"])) for f in fields(cls)})

    def with_changes(self, **changes: Any) -> Settings:
        """A copy with ``changes`` (field name -> value, ``None`` for unset), each checked as the
        environment's value would be (``threads="two"`` raises the same error as ``AYA_LAB_THREADS=two``)."""
        known = {f.name for f in fields(self)}
        unknown = sorted(set(changes) - known)
        if unknown:
            raise SettingsError(f"no setting {unknown[0]!r}; settings are {', '.join(sorted(known))}")
        return replace(self, **{k: _parse(k, None if v is None else str(v)) for k, v in changes.items()})

    def role_models(self) -> dict[str, str | None]:
        """``{role: spec or None}``: the model each role's own variable names (``AYA_LAB_MODEL_<ROLE>``, the
        field ``model_<role>``), for each of :data:`ROLES`."""
        return {role: getattr(self, f"model_{role}") for role in ROLES}


_FIELDS = {f.name: f for f in fields(Settings)}
_ENV_NAMES = tuple(f.metadata["env"] for f in fields(Settings))


def _parse(name: str, raw: str | None) -> Any:
    f = _FIELDS[name]
    text = (raw or "").strip()
    return f.default if not text else f.metadata["parse"](f.metadata["env"], text)


def variables() -> dict[str, str]:
    """``{environment variable: Settings field}``, in table order."""
    return {f.metadata["env"]: f.name for f in fields(Settings)}


class _State:
    """What :func:`settings` keeps: the parsed environment (with its raw values) and the override layers."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.raw: tuple[str | None, ...] | None = None
        self.from_env: Settings | None = None
        self.layers: list[dict[str, Any]] = [{}]  # [configure()'s, then one per active use_settings block]
        self.current: Settings | None = None


_STATE = _State()


def settings() -> Settings:
    """The current settings: the environment (parsed again only when a variable changed) plus overrides."""
    raw = tuple(os.environ.get(name) for name in _ENV_NAMES)
    with _STATE.lock:
        if raw != _STATE.raw or _STATE.from_env is None:
            given = {name: value for name, value in zip(_ENV_NAMES, raw, strict=True) if value is not None}
            parsed = Settings.from_env(given)  # a bad value raises here, before anything is cached
            _STATE.raw, _STATE.from_env, _STATE.current = raw, parsed, None
        if _STATE.current is None:
            current = _STATE.from_env
            for layer in _STATE.layers:
                current = replace(current, **layer)
            _STATE.current = current
        return _STATE.current


def configure(**changes: Any) -> Settings:
    """Override settings for the rest of the process (``configure(cache_mode="replay")``); returns the
    result. ``None`` means unset. :func:`reset_settings` drops every override."""
    checked = Settings().with_changes(**changes)
    with _STATE.lock:
        _STATE.layers[0].update({k: getattr(checked, k) for k in changes})
        _STATE.current = None
    return settings()


def reset_settings(*names: str) -> None:
    """Drop the overrides :func:`configure` made for ``names`` (default: all); the environment's values
    apply again."""
    with _STATE.lock:
        _STATE.layers[0] = {k: v for k, v in _STATE.layers[0].items() if names and k not in names}
        _STATE.current = None


@contextmanager
def use_settings(**changes: Any) -> Iterator[Settings]:
    """Override settings inside the ``with`` block (process-wide, so threads the block starts see them)."""
    checked = Settings().with_changes(**changes)
    layer = {k: getattr(checked, k) for k in changes}
    with _STATE.lock:
        _STATE.layers.append(layer)
        _STATE.current = None
    try:
        yield settings()
    finally:
        with _STATE.lock:
            _STATE.layers.remove(layer)
            _STATE.current = None


def _cell(text: str) -> str:
    """``text`` fit for a Markdown table cell (a ``|``, even inside backticks, would end the cell)."""
    return text.replace("|", "\\|")


def settings_table() -> str:
    """The Markdown page ``docs/SETTINGS.md``: one row per variable (type, default, what it sets)."""
    rows = [
        f"| `{f.metadata['env']}` | `{f.name}` | `{_cell(str(f.type))}` | {f.metadata['shown']} | {f.metadata['doc']} |"
        for f in fields(Settings)
    ]
    return "\n".join(
        [
            "# Settings",
            "",
            "<!-- generated by `python -m aya_lab.settings > docs/SETTINGS.md`; tests/test_settings.py checks it -->",
            "",
            "aya_lab reads these environment variables, and no others, in one place: `aya_lab.settings`.",
            "A bad value stops the first command that reads settings with one line naming the variable, the value",
            "and the fix. In Python, `aya_lab.settings.settings()` returns them as a frozen `Settings`;",
            '`configure(cache_mode="replay")` overrides one for the rest of the process and',
            "`with use_settings(threads=2): ...` for a block, without writing the environment.",
            "",
            "| Variable | Setting | Type | Default | What it sets |",
            "| --- | --- | --- | --- | --- |",
            *rows,
            "",
            "Read by other programs of the repository, not by the package: `AYA_LAB_NMT` (notebook 03's optional",
            "NMT system) and `AYA_LAB_PANEL_SCREENSHOT` (the browser test's screenshot target).",
            "",
        ]
    )


if __name__ == "__main__":  # pragma: no cover
    print(settings_table(), end="")
