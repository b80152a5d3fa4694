"""LoRA adapters as part of a model spec (``BASE+lora:PATH``): read, verify, identify, apply.

An adapter is a folder written by ``aya-lab tune`` (:mod:`aya_lab.tune`): PEFT's two files
(``adapter_config.json``, ``adapter_model.safetensors``), the run card ``aya_lab_adapter.json`` (what it
was trained on, how, and the SHA-256 of the two PEFT files) and a ``README.md`` for people. The folder is
written to a temporary name and renamed into place in one step, with the run card written last, so a
folder without its run card is one whose save was cut off.

:func:`read_adapter` refuses, with one line naming the file and the fix: a missing folder, a folder
without a run card (half-written, or not made by ``aya-lab tune``), a run card that is not JSON or not
this format, and a PEFT file that is missing or whose bytes differ from the hash the card records
(corrupted or edited). :func:`check_base` refuses an adapter trained on another base model: the card
records the base's weights identity (the same string the loader computes for a spec, e.g. the GGUF's
hash for the embedded models), and it must equal the spec's.

**Identity.** :attr:`Adapter.content_id` hashes the two PEFT files; :func:`adapted_weights` appends it
to the base's weights identity, so the model's fingerprint (and every cached generation's key) changes
with the adapter.

**Merged, on transformers.** :func:`merge_adapter` folds ``B·A·alpha/r`` into the base weights once, at
load, in memory (nothing is written): generation then costs exactly what the base costs (no extra
matrix products per layer), and the rest of the model layer sees a plain transformers model. The price
is a base copy per adapter in memory, which for the small models this project trains is the cheaper
side. The llama.cpp engine runs the adapter unmerged, from a GGUF conversion
(:mod:`aya_lab.models.lora_gguf`).
"""

from __future__ import annotations

import hashlib
import json
import os
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from aya_lab.models.errors import AdapterError, ModelNotFoundError

if TYPE_CHECKING:
    from transformers import PreTrainedModel

__all__ = [
    "ADAPTER_FORMAT",
    "CARD_FILE",
    "PEFT_FILES",
    "Adapter",
    "adapted_weights",
    "check_base",
    "merge_adapter",
    "peft_files_id",
    "read_adapter",
    "sha256_file",
]

ADAPTER_FORMAT = "aya_lab.lora.v1"
CARD_FILE = "aya_lab_adapter.json"
PEFT_FILES = ("adapter_config.json", "adapter_model.safetensors")
"""The files PEFT loads; their hashes are in the run card and make the adapter's identity."""


def sha256_file(path: Path) -> str:
    """SHA-256 hex digest of a file (read now: adapters are small, and a changed byte must show)."""
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def peft_files_id(hashes: dict[str, str]) -> str:
    """The adapter's content identity from its PEFT files' hashes: ``lora-sha256:<24 hex>``."""
    h = hashlib.sha256("".join(f"{name}:{hashes[name]}\n" for name in PEFT_FILES).encode())
    return f"lora-sha256:{h.hexdigest()[:24]}"


@dataclass(frozen=True)
class Adapter:
    """A verified adapter folder and its run card."""

    path: Path
    card: dict[str, object]  # the run card's JSON object
    content_id: str  # lora-sha256:... over the PEFT files

    def _section(self, name: str) -> dict[str, object]:
        """``card[name]``, a JSON object (:func:`read_adapter` checked the ones the properties read)."""
        return cast(dict[str, object], self.card[name])

    @property
    def base_weights(self) -> str:
        """The weights identity of the base model it was trained on."""
        return str(self._section("base")["weights"])

    @property
    def base_spec(self) -> str:
        return str(self._section("base")["spec"])

    @property
    def base_config(self) -> dict[str, object]:
        """The base's architecture facts (``model_type``, heads, layers) the GGUF conversion needs."""
        return dict(cast(dict[str, object], self._section("base")["config"]))

    @property
    def alpha(self) -> float:
        return float(cast(float, self._section("hyperparameters")["lora_alpha"]))


def _refuse_folder(path: Path, spec: str) -> None:
    if not path.exists():
        raise ModelNotFoundError(
            f"adapter folder {path} (from spec {spec!r}) does not exist; train one with "
            f"`aya-lab tune TASK --model BASE --out {path}`, or pass the folder `aya-lab tune --out` wrote"
        )
    if not path.is_dir():
        raise AdapterError(f"adapter {path} is a file, not a folder; pass the folder `aya-lab tune --out` wrote")
    if not (path / CARD_FILE).is_file():
        raise AdapterError(
            f"adapter folder {path} has no run card ({CARD_FILE}): its save was cut off or it was not written "
            f"by aya-lab tune; train it again with `aya-lab tune ... --out {path}`"
        )


def _read_card(card_path: Path) -> dict[str, Any]:
    try:
        card = json.loads(card_path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        reason = exc.msg if isinstance(exc, json.JSONDecodeError) else "not UTF-8"
        raise AdapterError(
            f"run card {card_path} is not valid JSON ({reason}); the adapter is damaged: train it again"
        ) from None
    if not isinstance(card, dict) or card.get("format") != ADAPTER_FORMAT:
        found = card.get("format") if isinstance(card, dict) else type(card).__name__
        raise AdapterError(
            f"run card {card_path} has format {found!r}, not {ADAPTER_FORMAT!r}; train the adapter again "
            "with this aya_lab"
        )
    for keys in (("base", "weights"), ("base", "spec"), ("base", "config"), ("hyperparameters", "lora_alpha")):
        node: Any = card
        for key in keys:
            if not isinstance(node, dict) or key not in node:
                raise AdapterError(
                    f"run card {card_path} lacks {'.'.join(keys)}; the adapter is damaged: train it again"
                )
            node = node[key]
    return card


def read_adapter(path: str | os.PathLike[str], spec: str = "") -> Adapter:
    """The adapter folder at ``path``, verified against its run card (see the module docstring)."""
    folder = Path(os.path.expanduser(str(path))).resolve()
    _refuse_folder(folder, spec or str(path))
    card_path = folder / CARD_FILE
    card = _read_card(card_path)
    files = card.get("files")
    recorded: dict[str, Any] = files if isinstance(files, dict) else {}
    hashes = {}
    for name in PEFT_FILES:
        file = folder / name
        if not file.is_file():
            raise AdapterError(f"adapter file {file} is missing; the adapter is incomplete: train it again")
        got, want = sha256_file(file), recorded.get(name)
        if got != want:
            raise AdapterError(
                f"adapter file {file} does not match its run card (sha256 {got[:12]}..., card "
                f"{str(want)[:12]}...): it is corrupted or was changed; train the adapter again or restore the file"
            )
        hashes[name] = got
    return Adapter(folder, card, peft_files_id(hashes))


def check_base(adapter: Adapter, base_weights: str, spec: str) -> None:
    """Refuse ``adapter`` on a base whose weights identity is not the one it was trained on."""
    if adapter.base_weights != base_weights:
        raise AdapterError(
            f"adapter {adapter.path} was trained on {adapter.base_spec!r} (weights {adapter.base_weights}), not on "
            f"the base of {spec!r} (weights {base_weights}); write {adapter.base_spec.split('~')[0]}+lora:"
            f"{adapter.path}, or train an adapter for this base"
        )


def adapted_weights(base_weights: str, adapter: Adapter) -> str:
    """The weights identity of ``base_weights`` with ``adapter`` applied (part of every fingerprint)."""
    return f"{base_weights}+{adapter.content_id}"


def merge_adapter(model: PreTrainedModel, adapter: Adapter) -> PreTrainedModel:
    """``model`` (a transformers causal LM) with ``adapter`` merged into its weights (in memory only)."""
    from peft import PeftModel

    with warnings.catch_warnings():  # transformers 5 deprecates an attribute PEFT still reads
        warnings.filterwarnings("ignore", message=".*is_gradient_checkpointing.*", category=FutureWarning)
        merged = PeftModel.from_pretrained(model, str(adapter.path), is_trainable=False)
    return merged.merge_and_unload()
