"""Generation settings: the knobs that change what a model outputs (and so belong in cache keys)."""

from __future__ import annotations

import json
from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from aya_lab.models.errors import GenerationSettingsError

__all__ = ["GenerationSettings"]

# Settings added after generations were recorded: left out of the cache key while at their default,
# so every key (and every model fingerprint) recorded before they existed stays the same.
_OMITTED_AT_DEFAULT = {"min_new_tokens": 0}


class GenerationSettings(BaseModel):
    """Decoding settings. ``temperature == 0`` means greedy decoding (the default: reproducible).

    ``min_new_tokens`` (default 0) forces at least that many new tokens: end-of-text and stop strings
    are ignored until then. Benchmarks set ``min_new_tokens = max_new_tokens`` so every generation has
    the same length and a timing ratio measures compute, not where a model happened to stop.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_new_tokens: int = Field(128, ge=1, le=4096)
    min_new_tokens: int = Field(0, ge=0, le=4096)
    temperature: float = Field(0.0, ge=0.0, le=5.0)
    top_p: float = Field(1.0, gt=0.0, le=1.0)
    repetition_penalty: float = Field(1.0, gt=0.0)
    seed: int = 0

    @model_validator(mode="after")
    def _min_not_above_max(self) -> GenerationSettings:
        if self.min_new_tokens > self.max_new_tokens:
            raise ValueError(
                f"min_new_tokens={self.min_new_tokens} exceeds max_new_tokens={self.max_new_tokens}; "
                "lower it or raise max_new_tokens"
            )
        return self

    @classmethod
    def checked(cls, values: Mapping[str, object]) -> GenerationSettings:
        """``GenerationSettings(**values)``, with a bad value as one :class:`GenerationSettingsError` line
        (pydantic's own error spans several) naming the setting, the value and the accepted range."""
        try:
            return cls(**values)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(part) for part in first["loc"])
            named = f"generation setting {where}={first['input']!r}" if where else "generation settings"
            raise GenerationSettingsError(f"{named}: {first['msg'].removeprefix('Value error, ')}") from None

    @property
    def greedy(self) -> bool:
        return self.temperature == 0.0

    def cache_key(self) -> str:
        """A canonical JSON string of every setting (sorted keys; newer settings only when not default)."""
        dump = self.model_dump()
        for name, default in _OMITTED_AT_DEFAULT.items():
            if dump[name] == default:
                del dump[name]
        return json.dumps(dump, sort_keys=True)
