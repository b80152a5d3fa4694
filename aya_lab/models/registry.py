"""The one registry of model specs: which strings name a model, checked in one place.

:data:`MODEL_KINDS` lists every kind of model the loader builds (the embedded names, ``gguf:``, ``hf:``,
``seq2seq:``, ``fake:``), each with how it is written, the engines it runs on, whether a LoRA adapter
applies and how it translates (``prompt``: a causal LM driven by a prompt file; ``nmt``: a seq2seq model
called directly). :func:`parse_spec` is the single validator of spec strings; everything that takes a
model takes it through here: ``--model`` on every command, the room's roles, ``aya-lab tune``, and the
translation systems of ``aya-lab eval run translation --systems`` (which accept every spec parsed here, plus
their own floors). :func:`model_help` (the help of every ``--model`` option), :func:`spec_forms` and
:func:`spec_help` generate the accepted forms for help texts and for the one-line error an unknown spec
gets, so a kind added to :data:`MODEL_KINDS` (and built in :mod:`aya_lab.models.loader`) shows up
everywhere at once. What a command does with its model (:data:`USES`: any kind, a chat model, a model
to train) decides which kinds it takes; :meth:`ModelKind.refusal` says why a kind is not taken.

This module imports no model stack (only the embedded models' names and the settings' role defaults), so
the CLI builds its parsers from it without importing LangChain or torch.

Modifiers, on any kind that allows them: ``SPEC~ENGINE`` (``~llama.cpp`` or ``~transformers``) and
``BASE+lora:PATH`` (a LoRA adapter folder on a causal LM).
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, get_args

from aya_lab.models.embedded import EMBEDDED
from aya_lab.models.errors import ModelSpecError
from aya_lab.settings import DEFAULT_DIRECTION_ADAPTERS, DEFAULT_ROLE_SPECS, variables

__all__ = [
    "ENGINES",
    "LORA_MARK",
    "MODEL_KINDS",
    "ModelKind",
    "ModelSpec",
    "USES",
    "Use",
    "model_help",
    "parse_spec",
    "spec_forms",
    "spec_help",
    "unknown_spec_hint",
]

ENGINES = ("llama.cpp", "transformers")
LORA_MARK = "+lora:"
Use = Literal["any", "chat", "train"]
USES: tuple[str, ...] = get_args(Use)
"""What a command does with the model it is given: ``any`` kind (``eval run translation``: a seq2seq model is a
system too), a ``chat`` model (the room's roles and the agents), or a base to ``train`` (``aya-lab tune``)."""


@dataclass(frozen=True)
class ModelKind:
    """One kind of model spec.

    ``name`` is the embedded name or the prefix before ``:``; ``form`` how it is written in help texts;
    ``what`` a short description; ``engines`` where it can run (``~ENGINE`` outside them is refused);
    ``translates`` is ``"prompt"`` (a causal LM: translation systems drive it with a ``user_translate``
    prompt) or ``"nmt"`` (a seq2seq model called directly); ``adapters``: ``+lora:PATH`` applies;
    ``tests_only``: left out of help texts.
    """

    name: str
    form: str
    what: str
    engines: tuple[str, ...]
    translates: str = "prompt"
    adapters: bool = True
    prefixed: bool = True
    tests_only: bool = False

    def refusal(self, use: Use) -> str | None:
        """Why a command that uses its model as ``use`` cannot take this kind (``None``: it can), as the
        end of ``"<form> models ..."``."""
        if use not in USES:
            raise ValueError(f"unknown model use {use!r}; one of {', '.join(USES)}")
        if use == "chat" and self.translates != "prompt":
            return "are NMT models, not chat models (eval run translation takes them as systems)"
        if use == "train" and (self.translates != "prompt" or self.tests_only):
            return "are not causal LMs"
        if use == "train" and "transformers" not in self.engines:
            return "run on llama.cpp only, which cannot train"
        return None


def _embedded_kind(name: str) -> ModelKind:
    model = EMBEDDED[name]
    what = f"embedded {model.label} ({'chat' if model.chat else 'base model: completion prompts'})"
    return ModelKind(name, name, what, ENGINES, prefixed=False)


MODEL_KINDS: dict[str, ModelKind] = {
    **{name: _embedded_kind(name) for name in EMBEDDED},
    "gguf": ModelKind("gguf", "gguf:<file>", "a GGUF file, or org/name/FILE.gguf from the HF cache", ("llama.cpp",)),
    "hf": ModelKind("hf", "hf:<path-or-hub-id>", "a causal LM checkpoint (chat or base)", ("transformers",)),
    "seq2seq": ModelKind(
        "seq2seq", "seq2seq:<path-or-hub-id>", "an NMT model (NLLB, M2M100, Marian)", ("transformers",), "nmt", False
    ),
    "fake": ModelKind("fake", "fake:...", "a scripted fake (tests only)", (), adapters=False, tests_only=True),
}
"""Every model kind, embedded names first; the loader builds each (:func:`aya_lab.models.loader.load_model`)."""


@dataclass(frozen=True)
class ModelSpec:
    kind: str  # a key of MODEL_KINDS
    target: str  # path, hub id or fake script ("" for embedded models)
    text: str  # the spec as written
    engine: str | None = None  # chosen with ~ENGINE (None: the kind's default, see engine_for)
    adapter: str | None = None  # a LoRA adapter folder (BASE+lora:PATH), see aya_lab.models.adapter

    @property
    def model_kind(self) -> ModelKind:
        return MODEL_KINDS[self.kind]


def spec_forms(*, tests: bool = True) -> list[str]:
    """How each kind is written (``smollm2``, ``gemma3-270m``, ``gguf:<file>``, ``hf:<path-or-hub-id>``,
    ...); ``tests=False`` leaves out the test-only kinds."""
    return [k.form for k in MODEL_KINDS.values() if tests or not k.tests_only]


def model_help(
    use: Use = "chat", *, roles: Sequence[str] = (), what: str = "model spec", directions: bool = False
) -> str:
    """The help of a ``--model`` option, generated from :data:`MODEL_KINDS`: every kind the command takes
    (embedded names first) with the modifiers that apply, and every kind it does not take with the reason.
    With ``roles``: the ``ROLE=SPEC`` form and each role's default (:data:`~aya_lab.settings.DEFAULT_ROLE_SPECS`,
    what the loader falls back to) with the environment variables over it; without, ``what`` the spec is.
    ``directions``: also the ``translator:SRC-TGT=SPEC`` form of a room and its measured defaults
    (:data:`~aya_lab.settings.DEFAULT_DIRECTION_ADAPTERS`). Test-only kinds are left out."""
    kinds = [k for k in MODEL_KINDS.values() if not k.tests_only]
    taken = [k for k in kinds if k.refusal(use) is None]
    embedded = [k.form for k in taken if not k.prefixed]
    forms = [f"{', '.join(embedded)} (embedded)"] if embedded else []
    text = ", ".join(forms + [k.form for k in taken if k.prefixed])
    if use == "train":
        text += " (trained on transformers; name a base, not an adapter spec)"
    else:
        text += f"; also SPEC~ENGINE ({', '.join('~' + e for e in ENGINES)}) and BASE{LORA_MARK}PATH (a LoRA adapter)"
    refused = [f"{k.form} models {k.refusal(use)}" for k in kinds if k.refusal(use) is not None]
    text += f"; not taken here: {'; '.join(refused)}" if refused else ""
    if not roles:
        return f"{what}: {text}"
    env = {field: name for name, field in variables().items()}
    defaults = ", ".join(f"{role}={DEFAULT_ROLE_SPECS[role]}" for role in roles)
    own = ", ".join(env[f"model_{role}"] for role in roles)
    out = (
        f"{what} for every role, or ROLE=SPEC for one (roles: {', '.join(roles)}); repeatable, e.g. --model "
        f"{roles[0]}={DEFAULT_ROLE_SPECS[roles[-1]]}. SPEC: {text}. Default: each role's own ({defaults}); "
        f"{env['model']} sets every role, {own} one each"
    )
    if directions:
        measured = ", ".join(f"{pair}: {base}{LORA_MARK}data/adapters/{folder}" for pair, (base, folder)
                             in DEFAULT_DIRECTION_ADAPTERS.items())  # fmt: skip
        out += ". translator:SRC-TGT=SPEC sets the translator of one direction" + (
            f"; when the translator is an adapter's base, the measured adapters are the default ({measured})"
            if measured
            else "; no direction has a default adapter (none has a record on chat messages)"
        )
    return out


def spec_help(indent: str = "  ") -> str:
    """A help block: one line per kind (form and description), then the modifiers."""
    kinds = [k for k in MODEL_KINDS.values() if not k.tests_only]
    width = max(len(k.form) for k in kinds) + 2
    lines = [f"{indent}{k.form:<{width}}{k.what}" for k in kinds]
    lines.append(f"{indent}{'SPEC~ENGINE':<{width}}run on " + " or ".join(ENGINES))
    lines.append(f"{indent}{'BASE+lora:PATH':<{width}}a LoRA adapter folder (aya-lab tune) on a causal LM")
    return "\n".join(lines)


def unknown_spec_hint(value: str) -> str:
    """`` (did you mean 'smollm2'?)`` when ``value`` is close to an embedded name, else ``""``."""
    close = difflib.get_close_matches(value, [k for k, v in MODEL_KINDS.items() if not v.prefixed], n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def parse_spec(spec: str) -> ModelSpec:
    """Parse a spec string; raises :class:`ModelSpecError` naming the value and the accepted forms.

    ``BASE+lora:PATH`` (any base spec, then a LoRA adapter folder; ``~ENGINE`` on the base or at the end)
    names the base with the adapter applied."""
    text = (spec or "").strip()
    if LORA_MARK in text and not text.startswith("fake:"):
        return _parse_adapter_spec(text)
    source, tilde, engine = text.rpartition("~")
    if not tilde or "/" in engine or text.startswith("fake:"):  # no suffix (a ~ inside a path is not one)
        source, tilde, engine = text, "", ""
    chosen = _check_engine(engine.strip(), text) if tilde else None
    source = source.strip()
    prefix, sep, target = source.partition(":")
    kind = MODEL_KINDS.get(source) if source in MODEL_KINDS and not MODEL_KINDS[source].prefixed else None
    if kind is None:
        kind = MODEL_KINDS.get(prefix) if sep else None
        if kind is None or not kind.prefixed:
            raise ModelSpecError(
                f"unknown model spec {spec!r}{unknown_spec_hint(source)}; use {', '.join(spec_forms())} "
                "(fake: for tests only), optionally with ~llama.cpp or ~transformers, or BASE+lora:PATH"
            )
        if not target.strip():
            raise ModelSpecError(f"model spec {spec!r} names no model after '{prefix}:'; e.g. {prefix}:org/name")
    if chosen is not None and chosen not in kind.engines:
        runs = ", ".join(kind.engines)
        raise ModelSpecError(
            f"model spec {spec!r}: {kind.form} models do not run on {chosen}; drop ~{chosen}"
            + (f" (they run on {runs})" if runs else "")
        )
    return ModelSpec(kind.name, target.strip() if kind.prefixed else "", text, chosen)


def _parse_adapter_spec(text: str) -> ModelSpec:
    """``BASE+lora:PATH[~ENGINE]`` (see :func:`parse_spec`)."""
    base_text, _, rest = text.partition(LORA_MARK)
    path, tilde, engine = rest.rpartition("~")
    if not tilde or "/" in engine:  # no suffix (a ~ inside a path is not one)
        path, engine = rest, ""
    path = path.strip()
    if not path:
        raise ModelSpecError(
            f"model spec {text!r} names no adapter after '+lora:'; e.g. gemma3-270m+lora:runs/adapters/x"
        )
    if LORA_MARK in path:
        raise ModelSpecError(f"model spec {text!r} names more than one adapter; one +lora:PATH per spec")
    base = parse_spec(base_text)
    outer = _check_engine(engine.strip(), text) if tilde and engine else None
    if not base.model_kind.adapters:
        takes = ", ".join(k.form for k in MODEL_KINDS.values() if k.adapters)
        raise ModelSpecError(
            f"model spec {text!r}: LoRA adapters apply to causal LMs ({takes}), not to {base.kind}: models"
        )
    if outer is not None and base.engine is not None and outer != base.engine:
        raise ModelSpecError(f"model spec {text!r} names two engines (~{base.engine}, ~{outer}); keep one")
    chosen = outer or base.engine
    if chosen is not None and chosen not in base.model_kind.engines:
        raise ModelSpecError(f"model spec {text!r}: {base.kind}: models do not run on {chosen}; drop ~{chosen}")
    return ModelSpec(base.kind, base.target, text, chosen, adapter=path)


def _check_engine(engine: str, written: str) -> str:
    if engine in ENGINES:
        return engine
    close = difflib.get_close_matches(engine, ENGINES, n=1, cutoff=0.5)
    hint = f"did you mean ~{close[0]}? " if close else ""
    raise ModelSpecError(
        f"unknown engine {engine!r} in model spec {written!r}; {hint}engines: ~llama.cpp, ~transformers"
    )
