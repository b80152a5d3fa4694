"""``train_adapter``: a LoRA adapter for one task, trained on transformers + PEFT, resumable, with a run card.

The loop is written out (no ``Trainer``, no ``trl``): a few dozen lines do what the project needs — a
seeded split and batch order (:mod:`~aya_lab.tune.batches`), a loss on the answer tokens only, AdamW
on the LoRA weights with a linear warm-up and gradient clipping, a checkpoint every
``checkpoint_every`` steps (:mod:`~aya_lab.tune.checkpoint`), a tqdm bar showing the loss, and the
validation loss before and after — and nothing it does not (mixed-precision scaling, distributed
training, packing). Each step seeds torch from ``(seed, step)``, so dropout, like the batches, does not
depend on whether the run was interrupted: a resumed run ends where an unbroken one ends.

Where it runs: CPU in fp32 by default; CUDA when available (or ``device="cuda"``), the base in bf16 and
the LoRA weights in fp32 (PEFT keeps adapter weights in fp32). The base is the spec's model on the
transformers engine: the embedded GGUF models de-quantized (``gemma3-270m~transformers``, as the
``~transformers`` engine loads them), ``hf:`` checkpoints as they are. The adapter then runs on either
engine (:mod:`aya_lab.models.adapter`).

What was simplified: one adapter per run, no early stopping (the validation loss is reported, not acted
on), no learning-rate decay.
"""

from __future__ import annotations

import datetime as dt
import logging
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any, Unpack, cast

from aya_lab import __version__
from aya_lab.models import load_model, parse_spec
from aya_lab.models.adapter import CARD_FILE, read_adapter
from aya_lab.models.device import pick_device
from aya_lab.models.embedded import EMBEDDED
from aya_lab.models.errors import AdapterError
from aya_lab.models.registry import MODEL_KINDS
from aya_lab.tune.batches import Tokenized, answer_loss, batch_rows, collate, split_indices, tokenize
from aya_lab.tune.card import RunCard, remove_partials, save_adapter
from aya_lab.tune.checkpoint import Checkpoint, RunCheckpoints, RunState, checkpoint_folder
from aya_lab.tune.config import TuneConfig, TuneOptions
from aya_lab.tune.errors import TrainingDataError, TuneError
from aya_lab.tune.examples import TaskData, load_task_data

if TYPE_CHECKING:
    import torch

    from aya_lab.models.hf_causal import HFChatModel

__all__ = ["TuneResult", "train_adapter", "training_spec", "validation_loss"]

_log = logging.getLogger(__name__)
_GEMMA_TERMS = "Gemma Terms of Use (ai.google.dev/gemma/terms): this adapter modifies Gemma; pass the terms on with it"


@dataclass(frozen=True)
class TuneResult:
    """A finished run: the adapter folder, its run card, and the model spec that loads it."""

    path: Path
    card: RunCard  # as written
    spec: str


def training_spec(spec: str) -> tuple[str, str]:
    """``(spec to train on, spec to name the base by)``: the base on the transformers engine, and as written
    without the engine (``gemma3-270m`` -> ``gemma3-270m~transformers``, ``gemma3-270m``)."""
    parsed = parse_spec(spec)
    if parsed.adapter:
        raise TuneError(f"train from a base model, not from the adapter spec {spec!r}; drop its +lora:... part")
    why = parsed.model_kind.refusal("train")  # the registry says which kinds train (the --model help too)
    if why is not None:
        takes = ", ".join(k.form for k in MODEL_KINDS.values() if not k.tests_only and k.refusal("train") is None)
        raise TuneError(f"cannot train on {spec!r}: {parsed.kind}: models {why}; use one of {takes}")
    if parsed.engine == "llama.cpp":
        raise TuneError(f"training runs on transformers; drop ~llama.cpp from {spec!r}")
    base = spec.strip().removesuffix("~transformers")
    return (f"{base}~transformers" if parsed.kind in EMBEDDED else base), base


def _check_out(config: TuneConfig, identity: dict[str, Any]) -> None:
    """Refuse to replace an adapter of another run unless ``overwrite`` (the same run, continued, may)."""
    out = config.out
    remove_partials(out)
    if not out.exists() or config.overwrite:
        return
    try:
        same = read_adapter(out).card.get("run") == identity
    except (AdapterError, OSError):
        same = False
    if not same:
        raise TuneError(
            f"{out} already exists and is not an adapter of this run; choose another --out, or pass --overwrite to "
            "replace it"
        )


def _lora_model(hf_model: Any, config: TuneConfig) -> Any:
    """``hf_model`` with LoRA layers on ``config.targets``, initialised from the seed (A random, B zero)."""
    import torch
    from peft import LoraConfig, get_peft_model

    torch.manual_seed(config.seed)
    lora = LoraConfig(
        r=config.rank,
        lora_alpha=config.alpha,  # type: ignore[arg-type]  # typed int by PEFT; a float alpha works
        lora_dropout=config.dropout,
        target_modules=list(config.targets),
        bias="none",
        task_type="CAUSAL_LM",
    )
    try:
        with warnings.catch_warnings():  # transformers 5 deprecates an attribute PEFT still reads
            warnings.filterwarnings("ignore", message=".*is_gradient_checkpointing.*", category=FutureWarning)
            return get_peft_model(hf_model, lora)
    except ValueError as exc:
        linear = sorted({n.rsplit(".", 1)[-1] for n, m in hf_model.named_modules() if type(m).__name__ == "Linear"})
        raise TuneError(
            f"--targets {','.join(config.targets)}: {str(exc).splitlines()[0][:120]}; this model's linear layers: "
            f"{', '.join(linear)}"
        ) from None


def _peft_config(peft_model: Any, base: str) -> dict[str, Any]:
    raw = peft_model.peft_config["default"].to_dict()
    raw["base_model_name_or_path"] = base
    return {k: sorted(v) if isinstance(v, set) else v for k, v in raw.items()}


def validation_loss(
    model: torch.nn.Module, rows: Sequence[Tokenized], batch_size: int, pad_id: int, device: str
) -> float:
    """The mean loss per answer token over ``rows`` under ``model`` (a causal LM; no dropout, no gradients)."""
    import torch

    model.eval()
    total, count = 0.0, 0
    with torch.no_grad():
        for i in range(0, len(rows), batch_size):
            batch = collate(rows[i : i + batch_size], pad_id, device)
            n = int((batch["labels"][:, 1:] != -100).sum())
            total += float(answer_loss(model, batch)) * n
            count += n
    return total / max(count, 1)


def _prepare_rows(config: TuneConfig, model: Any, data: TaskData) -> tuple[list[Tokenized], list[Tokenized], int]:
    """``(training pool, validation rows, examples dropped as too long)``."""
    if not data.examples:
        raise TrainingDataError(f"{data.source} holds no examples for task {config.task}; give a non-empty file")
    train_idx, val_idx = split_indices(
        len(data.examples), validation=config.validation, max_validation=config.max_validation,
        max_train=config.max_train, seed=config.seed, source=data.source,
    )  # fmt: skip
    limit = min(config.token_limit, model.context_length)
    train, dropped_t = tokenize(model, [data.examples[i] for i in train_idx], limit)
    val, dropped_v = tokenize(model, [data.examples[i] for i in val_idx], limit)
    if not train or not val:
        raise TrainingDataError(
            f"{data.source}: every {'training' if not train else 'validation'} example's answer is longer than half "
            f"of --max-tokens {limit}; raise --max-tokens or shorten the answers"
        )
    return train, val, dropped_t + dropped_v


class _Run:
    """One training process: the model with its LoRA layers, the optimizer, the rows, the checkpoints."""

    def __init__(self, config: TuneConfig, model: Any, peft_model: Any, rows: tuple[list[Tokenized], list[Tokenized]], checkpoints: RunCheckpoints) -> None:  # fmt: skip
        import torch

        self.config, self.model, self.peft = config, model, peft_model
        self.train_rows, self.val_rows = rows
        self.checkpoints = checkpoints
        self.device = str(model.device)
        self.pad_id = int(model.tokenizer.pad_token_id)
        self.params = [p for p in peft_model.parameters() if p.requires_grad]
        self.optimizer = torch.optim.AdamW(self.params, lr=config.learning_rate, weight_decay=0.0)
        self.losses: list[float] = []
        self.seconds = 0.0
        self.validation_before = float("nan")

    def restore(self, checkpoint: Checkpoint | None) -> int:
        """Load ``checkpoint`` (or measure the validation loss before training); returns the step to start at."""
        from peft import set_peft_model_state_dict

        if checkpoint is None:
            started = time.perf_counter()
            self.validation_before = self.validate()
            self.seconds += time.perf_counter() - started
            return 0
        set_peft_model_state_dict(self.peft, checkpoint.weights)
        self.optimizer.load_state_dict(checkpoint.optimizer)
        self.losses = [float(x) for x in checkpoint.state["losses"]]
        self.seconds = float(checkpoint.state["seconds"])
        self.validation_before = float(checkpoint.state["validation_before"])
        _log.warning("resuming from %s at step %d", self.checkpoints.folder, checkpoint.step)
        return checkpoint.step

    def validate(self) -> float:
        return validation_loss(self.peft, self.val_rows, self.config.batch_size, self.pad_id, self.device)

    def step(self, step: int) -> float:
        """One optimizer step on batch ``step``; returns its loss."""
        import torch

        c = self.config
        torch.manual_seed(c.seed * 1_000_003 + step)
        self.peft.train()
        for group in self.optimizer.param_groups:
            group["lr"] = c.learning_rate * min(1.0, (step + 1) / max(1, c.warmup))
        rows = [self.train_rows[i] for i in batch_rows(step, len(self.train_rows), c.batch_size, c.seed)]
        loss = answer_loss(self.peft, collate(rows, self.pad_id, self.device))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.params, 1.0)
        self.optimizer.step()
        self.optimizer.zero_grad(set_to_none=True)
        return float(loss.detach())

    def save(self, step: int) -> None:
        from peft import get_peft_model_state_dict

        state: RunState = {"losses": self.losses, "seconds": self.seconds, "validation_before": self.validation_before}
        self.checkpoints.save(step, get_peft_model_state_dict(self.peft), self.optimizer.state_dict(), state)

    def run(self, start: int, on_step: Callable[[int, float], None] | None, progress: bool | None) -> None:
        from tqdm.auto import tqdm

        c = self.config
        with tqdm(total=c.steps, initial=min(start, c.steps), desc=f"tune {c.task}", unit="step", file=sys.stderr,
                  disable=None if progress is None else not progress) as bar:  # fmt: skip
            for step in range(start, c.steps):
                started = time.perf_counter()
                loss = self.step(step)
                self.seconds += time.perf_counter() - started
                self.losses.append(loss)
                bar.update(1)
                bar.set_postfix(loss=f"{loss:.3f}")
                if (step + 1) % c.checkpoint_every == 0 or step + 1 == c.steps:
                    self.save(step + 1)
                if on_step is not None:
                    on_step(step + 1, loss)


def _versions() -> dict[str, str]:
    out = {"aya_lab": __version__}
    for package in ("torch", "transformers", "peft"):
        try:
            out[package] = metadata.version(package)
        except metadata.PackageNotFoundError:  # pragma: no cover - pinned requirements
            out[package] = "unknown"
    return out


def _card(run: _Run, data: TaskData, base: str, identity: dict[str, Any], dropped: int) -> RunCard:
    c, model = run.config, run.model
    config = model.hf_model.config
    facts = ("model_type", "num_attention_heads", "num_key_value_heads", "num_hidden_layers", "hidden_size")
    started = time.perf_counter()
    after = run.validate()
    run.seconds += time.perf_counter() - started
    return {
        "task": c.task,
        "base": {
            "spec": base, "weights": model.weights, "fingerprint": model.fingerprint,
            "config": {k: getattr(config, k, None) for k in facts},
            "licence": _GEMMA_TERMS if base.startswith("gemma") else "",
        },
        "data": {
            "source": data.source, "files": data.files, "sha256": data.sha256, "license": data.license,
            "train": len(run.train_rows), "validation": len(run.val_rows), "dropped_too_long": dropped,
            "prompt": f"{data.prompt.name} ({data.prompt.content_hash[:12]})",
        },
        "hyperparameters": c.hyperparameters(),
        "run": identity,
        "steps": len(run.losses),
        "seconds": round(run.seconds, 1),
        "device": run.device,
        "dtype": str(model.hf_model.dtype).removeprefix("torch."),
        "loss": {
            "validation_before": run.validation_before, "validation_after": after,
            "train_first": run.losses[0], "train_last": run.losses[-1], "train_curve": run.losses,
        },
        "versions": _versions(),
        "finished": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
    }  # fmt: skip


def train_adapter(
    config: TuneConfig | None = None,
    *,
    on_step: Callable[[int, float], None] | None = None,
    progress: bool | None = None,
    **options: Unpack[TuneOptions],
) -> TuneResult:
    """Train a LoRA adapter as ``config`` (or the keyword ``options`` of :class:`TuneConfig`) says and write it
    to ``config.out`` with its run card; returns the adapter's folder, card and model spec.

    ``on_step(step, loss)`` is called after every step (and after that step's checkpoint, if one is due);
    an exception it raises stops the run there, as a kill would. ``progress``: the tqdm bar (``None``: only
    on a terminal). Bad input raises a one-line :class:`~aya_lab.errors.AyaLabError` before any training.
    """
    config = config or TuneConfig(**options)
    train_spec, base = training_spec(config.model)
    # a base to train runs on transformers (training_spec): a transformers causal LM
    model = cast("HFChatModel", load_model(train_spec, reuse=False, device=pick_device(config.device)[0]))
    data = load_task_data(config.task, config.data, model, pair=config.pair)
    identity = {**config.identity(data.sha256), "model": base, "base_weights": model.weights}
    _check_out(config, identity)
    train_rows, val_rows, dropped = _prepare_rows(config, model, data)
    checkpoints = RunCheckpoints(checkpoint_folder(config.out), identity)
    checkpoints.prepare(restart=config.restart)
    run = _Run(config, model, _lora_model(model.hf_model, config), (train_rows, val_rows), checkpoints)
    start = run.restore(checkpoints.latest())
    if start < config.steps:
        run.run(start, on_step, progress)
    elif start > config.steps:
        raise TuneError(
            f"{checkpoints.folder} is at step {start}, past --steps {config.steps}; ask for at least {start} steps, "
            "or pass --restart to train anew"
        )
    card = _card(run, data, base, identity, dropped)
    card = save_adapter(config.out, weights=_lora_weights(run), peft_config=_peft_config(run.peft, base), card=card,
                        replace=True)  # fmt: skip
    _log.info("adapter written to %s (%s)", config.out, CARD_FILE)
    return TuneResult(config.out, card, f"{base}+lora:{config.out}")


def _lora_weights(run: _Run) -> dict[str, Any]:
    from peft import get_peft_model_state_dict

    return dict(get_peft_model_state_dict(run.peft))
