"""Output-language check for evaluation: re-exports :mod:`aya_lab.langid` (moved to the core so the
room's translation guard can use it without importing ``aya_lab.eval``)."""

from __future__ import annotations

from aya_lab.langid import ECHO_CHRF, confidence, covered, detect, detector_for, echo_share, target_share

__all__ = ["ECHO_CHRF", "confidence", "covered", "detect", "target_share", "echo_share", "detector_for"]
