"""Writing an adapter folder all at once: the PEFT files, the run card (JSON) and its README.

:func:`atomic_folder` is how every folder of a training run is written (the final adapter and each
checkpoint): into a hidden temporary sibling (``.NAME.XXXX.partial``), every file flushed and fsynced,
then renamed into place in one step (and the parent folder fsynced). A process killed at any point
leaves either the previous folder or the new one, plus at most a ``.partial`` sibling that nothing
loads and the next run removes. The run card is the last file written inside, and the loader
(:func:`aya_lab.models.adapter.read_adapter`) checks the PEFT files against the hashes it records.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, NotRequired, TypedDict

from aya_lab.models.adapter import ADAPTER_FORMAT, CARD_FILE, PEFT_FILES, peft_files_id, sha256_file
from aya_lab.tune.errors import TuneError

if TYPE_CHECKING:
    import torch

__all__ = [
    "BaseFacts",
    "DataFacts",
    "LossFacts",
    "RunCard",
    "atomic_folder",
    "remove_partials",
    "render_readme",
    "save_adapter",
    "write_json",
]


class BaseFacts(TypedDict):
    """The run card's ``base``: the model trained on (``config``: its architecture facts, for the GGUF conversion)."""

    spec: str
    weights: str
    fingerprint: str
    config: dict[str, object]
    licence: str


class DataFacts(TypedDict):
    """The run card's ``data``: what the examples came from and how many went where."""

    source: str
    files: list[str]
    sha256: str
    license: str
    train: int
    validation: int
    dropped_too_long: int
    prompt: str


class LossFacts(TypedDict):
    """The run card's ``loss``: the validation loss before and after, the training loss of each step."""

    validation_before: float
    validation_after: float
    train_first: float
    train_last: float
    train_curve: list[float]


class RunCard(TypedDict):
    """The run card (``aya_lab_adapter.json``) as a training run writes it; :func:`save_adapter` adds ``format``,
    ``files`` (the PEFT files' SHA-256) and ``adapter`` (the identity they make)."""

    task: str
    base: BaseFacts
    data: DataFacts
    hyperparameters: dict[str, int | float | str]
    run: dict[str, object]  # the run's identity (TuneConfig.identity, with the base)
    steps: int
    seconds: float
    device: str
    dtype: str
    loss: LossFacts
    versions: dict[str, str]
    finished: str
    format: NotRequired[str]
    files: NotRequired[dict[str, str]]
    adapter: NotRequired[str]


def _fsync_path(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_json(path: Path, data: object) -> None:
    """``data`` (anything :func:`json.dump` takes) as indented JSON (UTF-8, sorted keys), flushed to disk."""
    with path.open("w", encoding="utf-8") as f:
        json.dump(data, f, indent=2, sort_keys=True, ensure_ascii=False)
        f.write("\n")
        f.flush()
        os.fsync(f.fileno())


@contextmanager
def atomic_folder(target: Path, *, replace: bool = False) -> Iterator[Path]:
    """Yield a temporary folder; when the block ends normally, fsync its files and rename it to ``target``
    (an existing ``target`` only when ``replace``: it is moved aside first, then removed). On any error the
    temporary folder is removed and ``target`` is untouched."""
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".partial", dir=target.parent))
    try:
        yield tmp
        for file in tmp.iterdir():
            _fsync_path(file)
        _fsync_path(tmp)
        old = None
        if target.exists():
            if not replace:
                raise TuneError(f"{target} appeared while it was being written (another run?); nothing was replaced")
            old = target.with_name(f".{target.name}.{os.getpid()}.old.partial")
            target.rename(old)
        tmp.rename(target)
        _fsync_path(target.parent)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def remove_partials(target: Path) -> None:
    """Remove what a killed writer of ``target`` left behind (its ``.NAME.*.partial`` siblings)."""
    if target.parent.is_dir():
        for leftover in target.parent.glob(f".{target.name}.*.partial"):
            shutil.rmtree(leftover, ignore_errors=True)


def save_adapter(
    target: Path,
    *,
    weights: Mapping[str, torch.Tensor],
    peft_config: Mapping[str, object],
    card: RunCard,
    replace: bool = False,
) -> RunCard:
    """Write an adapter folder at ``target`` atomically: PEFT's ``adapter_model.safetensors`` (``weights``,
    a LoRA state dict) and ``adapter_config.json``, then ``README.md`` and the run card, which records the
    PEFT files' hashes and the adapter's identity. Returns the card as written."""
    from safetensors.torch import save_file

    with atomic_folder(target, replace=replace) as tmp:
        save_file(
            {k: v.detach().cpu().contiguous() for k, v in weights.items()}, str(tmp / "adapter_model.safetensors")
        )
        write_json(tmp / "adapter_config.json", peft_config)
        files = {name: sha256_file(tmp / name) for name in PEFT_FILES}
        card = {**card, "format": ADAPTER_FORMAT, "files": files, "adapter": peft_files_id(files)}
        readme = tmp / "README.md"
        readme.write_text(render_readme(card, target), encoding="utf-8")
        write_json(tmp / CARD_FILE, card)
    return card


def _fmt(value: Any) -> str:
    return f"{value:.4g}" if isinstance(value, float) else str(value)


def render_readme(card: RunCard, target: Path) -> str:
    """The run card as Markdown, for people (the JSON beside it is what the loader reads)."""
    base, data, loss = card["base"], card["data"], card["loss"]
    hp = card["hyperparameters"]
    lines = [
        f"# LoRA adapter: {card['task']} on {base['spec']}",
        "",
        f"Trained by `aya-lab tune` on {card['finished']} ({card['device']}, {card['dtype']}), "
        f"{card['steps']} steps in {card['seconds']:.0f} s. Use it as the model spec "
        f"`{base['spec'].split('~')[0]}+lora:{target}`.",
        "",
        "| | |",
        "|---|---|",
        f"| adapter | `{card['adapter']}` |",
        f"| base | `{base['spec']}`, weights `{base['weights']}` |",
        f"| data | {data['source']} (sha256 `{data['sha256'][:16]}…`), {data['train']} training and "
        f"{data['validation']} validation examples, prompt `{data['prompt']}` |",
        f"| licence of the data | {data['license']} |",
        f"| validation loss | {_fmt(loss['validation_before'])} before, {_fmt(loss['validation_after'])} after |",
        f"| training loss | {_fmt(loss['train_first'])} at step 1, {_fmt(loss['train_last'])} at the last step |",
        "",
        "Hyper-parameters: " + ", ".join(f"{k} {_fmt(v)}" for k, v in sorted(hp.items())) + ".",
        "",
        f"Versions: {', '.join(f'{k} {v}' for k, v in sorted(card['versions'].items()))}. The JSON run card "
        f"(`{CARD_FILE}`) holds the same facts, the loss curve and the SHA-256 of each PEFT file; an adapter "
        "whose files do not match it is refused.",
        "",
    ]
    if base.get("licence"):
        lines += [f"Base model licence: {base['licence']}", ""]
    return "\n".join(lines)
