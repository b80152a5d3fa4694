"""aya_lab: a research workbench for multilingual multi-agent workplace chat on local models."""

from __future__ import annotations

__version__ = "0.1.0"
