"""A PEFT LoRA adapter as a LoRA GGUF, so llama.cpp runs it on the shipped quantized base, unmerged.

llama.cpp (``llama_adapter_lora_init``, in the installed ``llama-cpp-python``) reads LoRA adapters in
GGUF form: ``general.type = adapter``, ``adapter.type = lora``, ``adapter.lora.alpha``, the base's
``general.architecture``, and for each adapted matrix two f32 tensors named after the base tensor,
``blk.N.attn_q.weight.lora_a`` (PEFT's ``lora_A``, shape r × in) and ``....lora_b`` (``lora_B``, out × r).
llama.cpp's own converter (``convert_lora_to_gguf.py``) lives in its source tree, not in any installed
package, so this module writes the same layout with the ``gguf`` package (a pinned requirement):

- tensor names come from ``gguf``'s own name map for the architecture (``model.layers.0.self_attn.q_proj``
  -> ``blk.0.attn_q``);
- the Llama family stores q and k rows permuted for llama.cpp's rotary layout (the HF->GGUF converter's
  ``permute``; transformers undoes it when it de-quantizes a GGUF, which is the base the adapter was
  trained on), so ``lora_B`` of q and k is permuted the same way; Gemma 3 needs no permutation;
- llama.cpp scales the product by ``alpha / r`` itself, as PEFT does.

The file is written once per adapter content and base architecture into ``<cache dir>/adapters/``
through a temporary file renamed into place. ``tests/tune/test_llama_lora.py`` checks the result against
the transformers engine on the shipped SmolLM2 GGUF (the logit changes the adapter causes agree).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import cast

import numpy as np

from aya_lab.models.adapter import Adapter
from aya_lab.models.errors import AdapterError
from aya_lab.paths import cache_dir

__all__ = ["GGUF_ARCHITECTURES", "adapter_gguf", "convert_adapter", "gguf_tensor_name"]

GGUF_ARCHITECTURES = {"llama": "llama", "gemma3_text": "gemma3", "gemma3": "gemma3"}
"""transformers ``model_type`` -> llama.cpp architecture, for the bases this project trains adapters on."""
_PERMUTED = {"llama"}  # architectures whose q/k rows the HF->GGUF converter permutes
_PREFIX = "base_model.model."


def gguf_tensor_name(peft_key: str, arch: str, n_layers: int) -> tuple[str, str]:
    """``(GGUF base tensor name, "a"|"b")`` for a PEFT state-dict key such as
    ``base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight``."""
    import gguf

    module, _, rest = peft_key.removeprefix(_PREFIX).rpartition(".lora_")
    side = rest.split(".", 1)[0].lower()
    arch_enum = {name: key for key, name in gguf.MODEL_ARCH_NAMES.items()}[arch]
    mapped = gguf.get_tensor_name_map(arch_enum, n_layers).get_name(module + ".weight", try_suffixes=(".weight",))
    if mapped is None or side not in ("a", "b"):
        raise AdapterError(
            f"adapter tensor {peft_key!r} has no llama.cpp counterpart for {arch}; run it with ~transformers"
        )
    return mapped, side


def _permute(rows: np.ndarray, n_head: int) -> np.ndarray:
    """The HF->GGUF converter's q/k row permutation (rotary halves interleaved), on a matrix's rows."""
    return rows.reshape(n_head, 2, rows.shape[0] // n_head // 2, *rows.shape[1:]).swapaxes(1, 2).reshape(rows.shape)


def _architecture(adapter: Adapter) -> str:
    model_type = str(adapter.base_config.get("model_type", ""))
    arch = GGUF_ARCHITECTURES.get(model_type)
    if arch is None:
        raise AdapterError(
            f"adapter {adapter.path} is for a {model_type!r} model, which the llama.cpp conversion does not "
            f"know ({', '.join(sorted(GGUF_ARCHITECTURES))}); run it on transformers with ~transformers"
        )
    return arch


def convert_adapter(adapter: Adapter, target: Path) -> None:
    """Write ``adapter`` as a LoRA GGUF to ``target`` (see the module docstring)."""
    import gguf
    from safetensors.numpy import load_file

    arch, config = _architecture(adapter), cast(dict[str, int], adapter.base_config)  # the counts read here are ints
    n_layers, n_head = int(config["num_hidden_layers"]), int(config["num_attention_heads"])
    n_kv = int(config.get("num_key_value_heads") or n_head)
    tensors = load_file(str(adapter.path / "adapter_model.safetensors"))
    writer = gguf.GGUFWriter(str(target), arch)
    writer.add_type(gguf.GGUFType.ADAPTER)
    writer.add_string(gguf.Keys.Adapter.TYPE, "lora")
    writer.add_float32(gguf.Keys.Adapter.LORA_ALPHA, adapter.alpha)
    writer.add_string(gguf.Keys.General.NAME, f"aya_lab adapter {adapter.content_id}")
    for key in sorted(tensors):
        name, side = gguf_tensor_name(key, arch, n_layers)
        data = tensors[key].astype(np.float32)
        if side == "b" and arch in _PERMUTED and name.split(".")[-2] in ("attn_q", "attn_k"):
            data = _permute(data, n_head if name.split(".")[-2] == "attn_q" else n_kv)
        writer.add_tensor(f"{name}.lora_{side}", np.ascontiguousarray(data))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


def adapter_gguf(adapter: Adapter) -> Path:
    """The adapter's LoRA GGUF, converted on first use into ``<cache dir>/adapters/`` (atomic: a temporary
    file renamed into place). The base was checked by the caller (:func:`~aya_lab.models.adapter.check_base`)."""
    arch = _architecture(adapter)
    folder = cache_dir() / "adapters"
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{adapter.content_id.replace(':', '-')}-{arch}.gguf"
    if target.is_file():
        return target
    fd, tmp = tempfile.mkstemp(prefix=target.name + ".", suffix=".tmp", dir=folder)
    os.close(fd)
    try:
        convert_adapter(adapter, Path(tmp))
        os.replace(tmp, target)
    finally:
        Path(tmp).unlink(missing_ok=True)
    return target
