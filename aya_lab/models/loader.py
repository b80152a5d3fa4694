"""Spec strings -> models. ``smollm2`` | ``gemma3-270m`` | ``hf:<path-or-hub-id>`` | ``seq2seq:<path-or-hub-id>``
| ``fake:...``.

Loaded models are memoised per (spec, settings, device) within a process, because loading weights is
the slow part and a notebook asks for the same model many times.

**Roles.** The room and the evaluators name a model per role (:data:`ROLES`): ``translator`` (user
agents, Aya's translator, reply delivery) and ``aya`` (supervisor, query, summarizer).
:func:`parse_role_models` reads ``role=spec`` / ``spec`` arguments (a bare spec sets every role);
:func:`load_role_models` loads each distinct spec once, so a model named for two roles is one object.
"""

from __future__ import annotations

import difflib
import os
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from aya_lab.models.device import silence_transformers
from aya_lab.models.embedded import EMBEDDED, converted_model_dir
from aya_lab.models.errors import ModelSpecError
from aya_lab.models.fake import FakeChatModel
from aya_lab.models.fingerprint import weights_id
from aya_lab.models.hf_causal import HFChatModel
from aya_lab.models.resolve import resolve_checkpoint
from aya_lab.models.seq2seq import Seq2SeqTranslator
from aya_lab.models.settings import GenerationSettings

__all__ = [
    "DEFAULT_ROLE_SPECS",
    "DEFAULT_SPEC",
    "ROLES",
    "ModelSpec",
    "default_model_spec",
    "default_role_models",
    "load_chat_model",
    "load_model",
    "load_role_models",
    "parse_role_models",
    "parse_spec",
]

DEFAULT_SPEC = "smollm2"
ROLES = ("translator", "aya")
DEFAULT_ROLE_SPECS: Mapping[str, str] = {"translator": "gemma3-270m", "aya": "smollm2"}
"""Each role's default, chosen by ``benchmarks/measure_roles.py`` (README, "Models per role")."""
_PREFIXES = ("hf", "seq2seq", "fake")
_KINDS = (*EMBEDDED, *_PREFIXES)
_LOCK = threading.Lock()
_LOADED: dict[tuple[str, str, str | None], Any] = {}


@dataclass(frozen=True)
class ModelSpec:
    kind: str  # one of _KINDS
    target: str  # path, hub id or fake script ("" for embedded models)
    text: str  # the spec as written


def default_model_spec(role: str | None = None) -> str:
    """The spec a caller gets when it names none.

    Without ``role``: ``AYA_LAB_MODEL`` or ``smollm2`` (the default chat model). With a role of
    :data:`ROLES`: ``AYA_LAB_MODEL_<ROLE>``, else ``AYA_LAB_MODEL`` (which sets every role), else the role's
    measured default in :data:`DEFAULT_ROLE_SPECS`.
    """
    if role is not None:
        role = _check_role(role, role)
        own = os.environ.get(f"AYA_LAB_MODEL_{role.upper()}", "").strip()
        return own or os.environ.get("AYA_LAB_MODEL", "").strip() or DEFAULT_ROLE_SPECS[role]
    return os.environ.get("AYA_LAB_MODEL", "").strip() or DEFAULT_SPEC


def default_role_models() -> dict[str, str]:
    """``{role: spec}`` for every role when nothing is named: see :func:`default_model_spec`."""
    return {role: default_model_spec(role) for role in ROLES}


def parse_spec(spec: str) -> ModelSpec:
    """Parse a spec string; raises :class:`ModelSpecError` naming the value and the accepted forms."""
    text = (spec or "").strip()
    if text in EMBEDDED:
        return ModelSpec(text, "", text)
    prefix, sep, target = text.partition(":")
    if not sep or prefix not in _PREFIXES:
        close = difflib.get_close_matches(text, list(EMBEDDED), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise ModelSpecError(
            f"unknown model spec {spec!r}{hint}; use {', '.join(EMBEDDED)}, hf:<path-or-hub-id>, "
            "seq2seq:<path-or-hub-id> or fake:... (tests only)"
        )
    if not target.strip():
        raise ModelSpecError(f"model spec {spec!r} names no model after '{prefix}:'; e.g. {prefix}:org/name")
    return ModelSpec(prefix, target.strip(), text)


def load_model(
    spec: str | None = None,
    *,
    settings: GenerationSettings | dict[str, Any] | None = None,
    device: str | None = None,
    batch_size: int | None = None,
    reuse: bool = True,
) -> Any:
    """Load the model a spec names (default: ``AYA_LAB_MODEL`` or ``smollm2``).

    Returns a :class:`~aya_lab.models.base.LocalChatModel` for ``smollm2``/``hf:``/``fake:`` and a
    :class:`~aya_lab.models.seq2seq.Seq2SeqTranslator` for ``seq2seq:``.
    """
    parsed = parse_spec(spec or default_model_spec())
    if isinstance(settings, dict):
        settings = GenerationSettings(**settings)
    settings = settings or GenerationSettings()
    key = (parsed.text, settings.cache_key(), device)
    with _LOCK:
        if reuse and parsed.kind != "fake" and key in _LOADED:
            model = _LOADED[key]
        else:
            model = _build(parsed, settings, device)
            if parsed.kind != "fake":
                _LOADED[key] = model
    if batch_size is not None:
        model.batch_size = batch_size
    return model


def load_chat_model(spec: str | None = None, **kwargs: Any) -> Any:
    """Like :func:`load_model` but refuses ``seq2seq:`` specs (agents need a chat model)."""
    parsed = parse_spec(spec or default_model_spec())
    if parsed.kind == "seq2seq":
        raise ModelSpecError(
            f"{parsed.text!r} is a seq2seq translation model; agents need a chat model "
            f"({' or '.join(EMBEDDED)} or hf:<path>); use seq2seq models in translation evaluations"
        )
    return load_model(parsed.text, **kwargs)


def _build(parsed: ModelSpec, settings: GenerationSettings, device: str | None) -> Any:
    if parsed.kind == "fake":
        return FakeChatModel.from_spec(parsed.text, settings=settings)
    silence_transformers()

    if parsed.kind in EMBEDDED:
        model_dir = converted_model_dir(parsed.kind)
        weights = f"gguf-sha256:{EMBEDDED[parsed.kind].expected_sha256()[:24]}"
    else:
        model_dir = resolve_checkpoint(parsed.target, parsed.text)
        weights = weights_id(model_dir)
    if parsed.kind == "seq2seq":
        return Seq2SeqTranslator(parsed.text, str(model_dir), weights, settings=settings, device=device)
    base = parsed.kind in EMBEDDED and not EMBEDDED[parsed.kind].chat
    return HFChatModel.load(
        parsed.text, str(model_dir), weights, settings=settings, device=device, require_chat_template=not base
    )


def parse_role_models(values: Iterable[str] | str | None) -> dict[str, str]:
    """``["translator=gemma3-270m", "aya=smollm2"]`` -> ``{role: spec}``; a bare spec sets every role.

    Later values win. An unknown role is a one-line :class:`ModelSpecError` with a did-you-mean.
    """
    if isinstance(values, str):
        values = [values]
    out: dict[str, str] = {}
    for value in values or []:
        role, sep, spec = value.partition("=")
        if sep and ":" not in role and "/" not in role:
            out[_check_role(role.strip(), value)] = spec.strip()
            parse_spec(spec)
        else:
            parse_spec(value)
            out.update(dict.fromkeys(ROLES, value.strip()))
    return out


def _check_role(role: str, written: str) -> str:
    if role in ROLES:
        return role
    close = difflib.get_close_matches(role, ROLES, n=1)
    hint = f"did you mean {close[0]!r}? " if close else ""
    raise ModelSpecError(
        f"unknown model role {role!r} in {written!r}; {hint}roles: {', '.join(ROLES)} (write ROLE=SPEC, or a "
        "bare SPEC for every role)"
    )


def load_role_models(
    model: str | Any | None = None,
    models: Mapping[str, str | Any] | None = None,
    *,
    loader: Callable[..., Any] = load_chat_model,
    **kwargs: Any,
) -> dict[str, Any]:
    """``{role: model}`` for every role in :data:`ROLES`: ``models[role]`` if given, else ``model`` (else
    the role's default, :func:`default_model_spec`). Specs are loaded with ``loader`` once per distinct spec (objects pass through), so
    a model named for two roles is one object, loaded once."""
    for role in models or {}:
        _check_role(role, f"models={{{role!r}: ...}}")
    chosen = {role: (models or {}).get(role, model) for role in ROLES}
    loaded: dict[str, Any] = {}
    out = {}
    for role, value in chosen.items():
        spec = default_model_spec(role) if value is None else value
        if isinstance(spec, str):
            key = spec.strip()
            if key not in loaded:
                loaded[key] = loader(key, **kwargs)
            out[role] = loaded[key]
        else:
            out[role] = spec
    return out
