"""How many CPU threads a model computes with: one setting, ``AYA_LAB_THREADS``, defaulting to the
machine's **physical** cores.

Why physical cores: llama.cpp's CPU kernels stream weights from memory and keep each core's vector
units busy; a second hyper-thread on the same core competes for the same units and memory bandwidth,
so it adds scheduling noise rather than speed. A Ray actor gets one thread each (:mod:`.ray_executor`),
so actors on one machine do not oversubscribe its cores.
"""

from __future__ import annotations

import os

from aya_lab.settings import settings

__all__ = ["default_threads", "physical_cores"]


def physical_cores() -> int:
    """Physical CPU cores of this machine (logical CPUs when the count is unknown), at least 1."""
    try:
        import psutil

        count = psutil.cpu_count(logical=False)
    except ImportError:  # psutil is pinned in requirements.txt; a bare install still gets an answer
        count = None
    return max(1, count or os.cpu_count() or 1)


def default_threads() -> int:
    """``AYA_LAB_THREADS`` if set, else :func:`physical_cores`; a bad value is a
    :class:`~aya_lab.settings.SettingsError` naming it."""
    return settings().threads or physical_cores()
