"""Generation engines by name, for the faces: ``--engine local|ray`` on the CLI and ``AYA_LAB_ENGINE``
(``AYA_LAB_RAY_ADDRESS`` = ``auto`` | ``ray://host:port`` picks the cluster; unset = a local cluster
started on first use). See :mod:`aya_lab.models.executor` for the seam itself."""

from __future__ import annotations

from aya_lab.models.executor import GENERATION_ENGINES, EngineError, GenerationExecutor, LocalExecutor
from aya_lab.models.ray_executor import RayExecutor
from aya_lab.settings import settings

__all__ = ["executor_from_env", "make_executor"]


def make_executor(engine: str, address: str | None = None) -> GenerationExecutor:
    """An executor by name: ``local``, or ``ray`` on the cluster at ``address`` (None: a local cluster)."""
    name = (engine or "").strip().lower()
    if name == "local":
        return LocalExecutor()
    if name == "ray":
        return RayExecutor(address=address or None)
    raise EngineError(f"unknown engine {engine!r}; use one of {', '.join(GENERATION_ENGINES)}")


def executor_from_env(engine: str | None = None) -> GenerationExecutor:
    """``engine`` (e.g. a CLI flag) or ``AYA_LAB_ENGINE`` (default ``local``), with ``AYA_LAB_RAY_ADDRESS``."""
    current = settings()
    name = engine or current.engine
    if name.strip().lower() not in GENERATION_ENGINES:
        raise EngineError(
            f"engine {name!r} is not one of {', '.join(GENERATION_ENGINES)}; e.g. --engine ray or AYA_LAB_ENGINE=ray"
        )
    return make_executor(name, current.ray_address)
