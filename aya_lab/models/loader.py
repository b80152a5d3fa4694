"""Spec strings -> models. ``smollm2`` | ``gemma3-270m`` | ``gguf:<file>`` | ``hf:<path-or-hub-id>`` |
``seq2seq:<path-or-hub-id>`` | ``fake:...``, each optionally followed by ``~ENGINE``; a causal LM may carry a
LoRA adapter, ``BASE+lora:PATH`` (:mod:`aya_lab.models.adapter`: verified against its run card and its
base, part of the fingerprint; merged on transformers, unmerged from a GGUF conversion on llama.cpp).
Which strings are specs is decided by one registry, :mod:`aya_lab.models.registry` (:func:`parse_spec` is
re-exported here); this module builds what it parses.

**Engines** (:data:`ENGINES`). ``llama.cpp`` runs GGUF files as they are, on the CPU: it is the default
for the embedded models and ``gguf:`` files. ``transformers`` runs ``hf:``/``seq2seq:`` checkpoints, any
model on CUDA (bf16), and the embedded models de-quantised to fp32 when asked for with
``smollm2~transformers`` (the path used before llama.cpp, kept for comparison). On a machine where CUDA
is available (or ``device="cuda"``), the embedded models default to transformers. The suffix is the one
way to choose: it does not clash with the systems' ``MODEL@VARIANT`` or the roles' ``ROLE=SPEC``, and the
engine is part of every generation's fingerprint, so a cached generation of one engine is never served
as another's.

Loaded models are memoised per (spec, settings, device) within a process, because loading weights is
the slow part and a notebook asks for the same model many times.

**Roles.** The room and the evaluators name a model per role (:data:`ROLES`): ``translator`` (user
agents, Aya's translator, reply delivery) and ``aya`` (supervisor, query, summarizer).
:func:`parse_role_models` reads ``role=spec`` / ``spec`` arguments (a bare spec sets every role);
:func:`load_role_models` loads each distinct spec once, so a model named for two roles is one object.
"""

from __future__ import annotations

import difflib
import functools
import threading
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TypedDict, Unpack, cast

from aya_lab.models.adapter import Adapter, adapted_weights, check_base, merge_adapter, read_adapter
from aya_lab.models.base import LocalChatModel
from aya_lab.models.device import silence_transformers
from aya_lab.models.directions import direction_defaults, direction_of
from aya_lab.models.embedded import EMBEDDED, converted_model_dir, embedded_gguf
from aya_lab.models.errors import ModelSpecError
from aya_lab.models.fake import FakeChatModel
from aya_lab.models.fingerprint import file_sha256, weights_id
from aya_lab.models.hf_causal import HFChatModel
from aya_lab.models.llama_chat import LlamaCppChatModel
from aya_lab.models.lora_gguf import adapter_gguf
from aya_lab.models.registry import ENGINES, LORA_MARK, MODEL_KINDS, ModelSpec, parse_spec
from aya_lab.models.resolve import resolve_checkpoint, resolve_gguf
from aya_lab.models.seq2seq import Seq2SeqTranslator
from aya_lab.models.settings import GenerationSettings
from aya_lab.models.threads import default_threads
from aya_lab.settings import DEFAULT_ROLE_SPECS, ROLES, settings

__all__ = [
    "DEFAULT_ROLE_SPECS",
    "ENGINES",
    "DEFAULT_SPEC",
    "LORA_MARK",
    "ROLES",
    "LoadOptions",
    "LoadedModel",
    "ModelSpec",
    "base_checkpoint",
    "default_model_spec",
    "default_role_models",
    "engine_for",
    "load_chat_model",
    "load_model",
    "load_role_models",
    "parse_role_models",
    "role_specs",
    "parse_spec",
]

DEFAULT_SPEC = DEFAULT_ROLE_SPECS["aya"]
"""The default chat model (a spec loaded without a role): Aya's default."""
_ENGINE_KINDS = {e: tuple(k for k, v in MODEL_KINDS.items() if e in v.engines) for e in ENGINES}
_LOCK = threading.Lock()
LoadedModel = LocalChatModel | Seq2SeqTranslator
"""What :func:`load_model` returns: a chat model (llama.cpp, transformers or a fake), or a seq2seq translator."""
_LOADED: dict[tuple[str, str, str | None, int], LoadedModel] = {}


class LoadOptions(TypedDict, total=False):
    """The keyword options of :func:`load_model`, as :func:`load_chat_model` passes them on."""

    settings: GenerationSettings | dict[str, object] | None
    device: str | None
    batch_size: int | None
    reuse: bool
    threads: int | None


def default_model_spec(role: str | None = None) -> str:
    """The spec a caller gets when it names none.

    Without ``role``: ``AYA_LAB_MODEL`` or ``smollm2`` (the default chat model). With a role of
    :data:`ROLES`: ``AYA_LAB_MODEL_<ROLE>``, else ``AYA_LAB_MODEL`` (which sets every role), else the role's
    measured default in :data:`DEFAULT_ROLE_SPECS`.
    """
    current = settings()
    if role is not None:
        role = _check_role(role, role)
        return current.role_models()[role] or current.model or DEFAULT_ROLE_SPECS[role]
    return current.model or DEFAULT_SPEC


def default_role_models() -> dict[str, str]:
    """``{role: spec}`` for every role when nothing is named: see :func:`default_model_spec`."""
    return {role: default_model_spec(role) for role in ROLES}


def engine_for(parsed: ModelSpec, device: str | None = None) -> str:
    """The engine ``parsed`` runs on: its ``~ENGINE``, else llama.cpp for GGUF models on a CPU (embedded and
    ``gguf:``), else transformers (``hf:``/``seq2seq:``, fakes, and the embedded models where CUDA is used)."""
    if parsed.engine is not None:
        return parsed.engine
    if parsed.kind == "gguf":
        return "llama.cpp"
    if parsed.kind in EMBEDDED:
        return "transformers" if _cuda_chosen(device) else "llama.cpp"
    return "transformers"


def _cuda_chosen(device: str | None) -> bool:
    if device is not None:
        return device.startswith("cuda")
    import torch  # a hard dependency; imported only to ask whether a GPU is there

    return bool(torch.cuda.is_available())


def load_model(
    spec: str | None = None,
    *,
    settings: GenerationSettings | dict[str, object] | None = None,
    device: str | None = None,
    batch_size: int | None = None,
    reuse: bool = True,
    threads: int | None = None,
) -> LoadedModel:
    """Load the model a spec names (default: ``AYA_LAB_MODEL`` or ``smollm2``).

    Returns a :class:`~aya_lab.models.base.LocalChatModel` (llama.cpp or transformers, :func:`engine_for`)
    for chat and completion models and a :class:`~aya_lab.models.seq2seq.Seq2SeqTranslator` for
    ``seq2seq:``. ``threads``: CPU threads of a llama.cpp model (default :func:`default_threads`: the
    physical cores, or ``AYA_LAB_THREADS``).
    """
    parsed = parse_spec(spec or default_model_spec())
    if isinstance(settings, dict):
        settings = GenerationSettings.checked(settings)
    settings = settings or GenerationSettings()
    threads = threads or default_threads()
    adapter = read_adapter(parsed.adapter, parsed.text) if parsed.adapter else None
    key = (parsed.text + (f"|{adapter.content_id}" if adapter else ""), settings.cache_key(), device, threads)
    with _LOCK:
        if reuse and parsed.kind != "fake" and key in _LOADED:
            model = _LOADED[key]
        else:
            model = _build(parsed, settings, device, threads, adapter)
            if parsed.kind != "fake":
                _LOADED[key] = model
    if batch_size is not None:
        model.batch_size = batch_size
    return model


def load_chat_model(spec: str | None = None, **kwargs: Unpack[LoadOptions]) -> LocalChatModel:
    """Like :func:`load_model` but refuses ``seq2seq:`` specs (agents need a chat model)."""
    parsed = parse_spec(spec or default_model_spec())
    if parsed.model_kind.translates != "prompt":
        chat = ", ".join(k.form for k in MODEL_KINDS.values() if k.translates == "prompt" and not k.tests_only)
        raise ModelSpecError(
            f"{parsed.text!r} is a seq2seq translation model; agents need a chat model "
            f"({chat}); use seq2seq models in translation evaluations"
        )
    return cast(LocalChatModel, load_model(parsed.text, **kwargs))  # every other kind loads as a chat model


def _build(
    parsed: ModelSpec, settings: GenerationSettings, device: str | None, threads: int, adapter: Adapter | None = None
) -> LoadedModel:
    if parsed.kind == "fake":
        return FakeChatModel.from_spec(parsed.text, settings=settings)
    base = parsed.kind in EMBEDDED and not EMBEDDED[parsed.kind].chat
    if engine_for(parsed, device) == "llama.cpp":
        if parsed.kind in EMBEDDED:
            gguf, weights = embedded_gguf(parsed.kind), f"gguf-sha256:{EMBEDDED[parsed.kind].expected_sha256()[:24]}"
        else:
            gguf = resolve_gguf(parsed.target, parsed.text)
            weights = f"gguf-sha256:{file_sha256(gguf)[:24]}"
        lora = None
        if adapter is not None:
            check_base(adapter, weights, parsed.text)
            lora, weights = adapter_gguf(adapter), adapted_weights(weights, adapter)
        return LlamaCppChatModel.load(
            parsed.text, gguf, weights, threads=threads, settings=settings, require_chat_template=not base, lora=lora
        )
    silence_transformers()
    model_dir, weights = base_checkpoint(parsed)
    if parsed.kind == "seq2seq":
        return Seq2SeqTranslator(parsed.text, str(model_dir), weights, settings=settings, device=device)
    adapt = None
    if adapter is not None:
        check_base(adapter, weights, parsed.text)
        weights, adapt = adapted_weights(weights, adapter), functools.partial(merge_adapter, adapter=adapter)
    return HFChatModel.load(
        parsed.text, str(model_dir), weights, settings=settings, device=device, require_chat_template=not base,
        adapt=adapt,
    )  # fmt: skip


def base_checkpoint(parsed: ModelSpec) -> tuple[Path, str]:
    """``(checkpoint folder, weights identity)`` of a transformers-engine spec's base model (an embedded model
    is converted from its GGUF once, :func:`~aya_lab.models.embedded.converted_model_dir`)."""
    if parsed.kind in EMBEDDED:
        return converted_model_dir(parsed.kind), f"gguf-sha256:{EMBEDDED[parsed.kind].expected_sha256()[:24]}"
    if parsed.kind not in _ENGINE_KINDS["transformers"]:
        raise ModelSpecError(f"model spec {parsed.text!r}: {parsed.kind}: models do not run on transformers")
    model_dir = resolve_checkpoint(parsed.target, parsed.text)
    return model_dir, weights_id(model_dir)


def parse_role_models(values: Iterable[str] | str | None) -> dict[str, str]:
    """``["translator=gemma3-270m", "aya=smollm2"]`` -> ``{role: spec}``; a bare spec sets every role;
    ``translator:swh-eng=SPEC`` one translation direction (:mod:`aya_lab.models.directions`).

    Later values win. An unknown role is a one-line :class:`ModelSpecError` with a did-you-mean.
    """
    if isinstance(values, str):
        values = [values]
    out: dict[str, str] = {}
    for value in values or []:
        role, sep, spec = value.partition("=")
        if sep and role.strip().startswith("translator:"):  # translator:SRC-TGT=SPEC, one direction
            direction_of(role.strip(), value)  # a malformed direction is its own one-line error
            out[role.strip()] = spec.strip()
            parse_spec(spec)
        elif sep and ":" not in role and "/" not in role:
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


def role_specs(model: object = None, models: Mapping[str, object] | None = None) -> dict[str, object]:
    """What :func:`load_role_models` loads, before loading: ``{role or translator:SRC-TGT: spec or object}``, every
    key checked (a bad one is a one-line :class:`ModelSpecError`)."""
    given = dict(models or {})
    for key in given:
        written = f"models={{{key!r}: ...}}"
        if ":" in key:
            direction_of(key, written)
        else:
            _check_role(key, written)
    chosen = {role: given.get(role, model) for role in ROLES}
    chosen = {role: default_model_spec(role) if value is None else value for role, value in chosen.items()}
    return chosen | direction_defaults(chosen["translator"]) | {k: v for k, v in given.items() if k not in ROLES}


def load_role_models(
    model: object = None,
    models: Mapping[str, object] | None = None,
    *,
    loader: Callable[..., object] = load_chat_model,
    **kwargs: object,
) -> dict[str, object]:
    """``{role: model}`` for every role in :data:`ROLES`: ``models[role]`` if given, else ``model`` (else
    the role's default, :func:`default_model_spec`); plus ``translator:SRC-TGT`` keys, from ``models`` or
    the measured direction adapters for the translator's spec (:mod:`aya_lab.models.directions`). Specs are
    loaded with ``loader`` once per distinct spec (objects pass through), so a model named for two roles is
    one object, loaded once. A value is a spec string or a model object of any kind, so the result is what
    ``loader`` returns for the specs and the objects as given (callers that know their kinds narrow it)."""
    loaded: dict[str, object] = {}
    out = {}
    for role, spec in role_specs(model, models).items():
        if isinstance(spec, str):
            key = spec.strip()
            if key not in loaded:
                loaded[key] = loader(key, **kwargs)
            out[role] = loaded[key]
        else:
            out[role] = spec
    return out
