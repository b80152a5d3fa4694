"""Generation settings: the knobs that change what a model outputs (and so belong in cache keys)."""

from __future__ import annotations

import json

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["GenerationSettings"]


class GenerationSettings(BaseModel):
    """Decoding settings. ``temperature == 0`` means greedy decoding (the default: reproducible)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_new_tokens: int = Field(128, ge=1, le=4096)
    temperature: float = Field(0.0, ge=0.0, le=5.0)
    top_p: float = Field(1.0, gt=0.0, le=1.0)
    repetition_penalty: float = Field(1.0, gt=0.0)
    seed: int = 0

    @property
    def greedy(self) -> bool:
        return self.temperature == 0.0

    def cache_key(self) -> str:
        """A canonical JSON string of every setting (sorted keys)."""
        return json.dumps(self.model_dump(), sort_keys=True)
