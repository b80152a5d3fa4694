"""The summarizer variants' names, apart from the summarizers so that the task configs (whose help
``aya-lab eval run summaries --help`` shows) import no model stack."""

from __future__ import annotations

from typing import Literal, get_args

__all__ = ["SUMMARIZER_VARIANTS", "SummarizerVariant"]

SummarizerVariant = Literal["two_call", "one_call"]
SUMMARIZER_VARIANTS: tuple[SummarizerVariant, ...] = get_args(SummarizerVariant)
"""The summarizer variants, baseline first: the one set the agents, evaluators and CLI use."""
