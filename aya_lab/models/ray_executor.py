"""Generation on a Ray cluster: the ``ray`` engine of :mod:`aya_lab.models.executor`.

Workers are Ray **core actors** (:class:`_Worker`), each of which loads the model once from its spec
string and generates whole batches with the model's own ``_generate_uncached`` (the same padded,
batched code path as local runs, so greedy outputs are byte-identical). The driver keeps the cache:
it sends only misses, as the length-sorted batches :func:`~aya_lab.models.base.cached_generate`
made, and writes each batch's results to its SQLite cache as they arrive.

Why core actors and not Ray Data's ``map_batches``: the batches already exist (made by the cache
lookup, sorted by length), results must come back to the driver one batch at a time so they are
cached on arrival (an interrupted sweep resumes), and a failed batch must be resubmitted on its own.
Ray Data would re-batch the rows and own the retry and output order; actors plus ``ray.wait`` give
exactly the per-batch control the cache needs, in about a hundred lines.

Faults: an actor that dies mid-batch (killed, out of memory, node lost) is replaced and its batch is
resubmitted (up to ``max_retries`` times per batch); a batch is written to the cache once, when its
first successful result arrives. Actors need one GPU each where the cluster has GPUs
(``num_gpus=1``), else ``cpus_per_actor`` CPUs and as many torch and llama.cpp threads (one by default).
A completion prompt's stop strings travel with its batch, so a worker stops where the driver would.

Ray is imported when a :class:`RayExecutor` first runs a batch, so ``import aya_lab`` never pays for it.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, cast

from aya_lab.models.base import StopGenerator
from aya_lab.models.executor import BatchGenerator, EngineError
from aya_lab.models.loader import load_model
from aya_lab.models.result import GenerationResult

if TYPE_CHECKING:
    from ray.actor import ActorHandle

__all__ = ["RayExecutor"]


def _check_reachable(address: str, timeout_s: float = 3.0) -> None:
    """Fail fast (``OSError``) when ``host:port`` or ``ray://host:port`` refuses a TCP connection;
    ``auto`` is left to Ray (it reads the local cluster's address file)."""
    if address == "auto":
        return
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        raise ValueError(f"address {address!r} is not HOST:PORT, ray://HOST:PORT or auto")
    socket.create_connection((host, int(port)), timeout=timeout_s).close()


class _Worker:
    """A Ray actor body: one model, loaded once; generates whole batches without any cache."""

    def __init__(self, spec: str, settings: dict[str, Any], batch_size: int, threads: int) -> None:
        import torch

        torch.set_num_threads(max(1, threads))
        self.model = load_model(spec, settings=settings, batch_size=batch_size, reuse=False, threads=max(1, threads))

    def generate(self, prompts: list[str], repeat: int, stop: list[str] | None = None) -> list[GenerationResult]:
        if stop:  # a completion prompt's stop strings (the driver's StopView, over a model that takes them)
            return cast(StopGenerator, self.model)._generate_uncached(prompts, repeat, stop)
        return self.model._generate_uncached(prompts, repeat)

    def ready(self) -> bool:
        return True


class RayExecutor:
    """Generate batches on ``num_actors`` Ray actors (default: one per GPU, else one per 1 CPU).

    ``address``: ``None`` starts (or reuses) a local cluster with ``num_cpus`` CPUs; ``"auto"`` or
    ``"ray://host:port"`` connects to a running one. Actors are kept per (model spec, settings, batch
    size) for the executor's lifetime; :meth:`shutdown` ends them.
    """

    name = "ray"

    def __init__(
        self,
        address: str | None = None,
        *,
        num_actors: int | None = None,
        cpus_per_actor: int = 1,
        num_cpus: int | None = None,
        max_retries: int = 3,
        batch_timeout_s: float = 1800.0,
    ) -> None:
        self.address = address
        self.num_actors = num_actors
        self.cpus_per_actor = cpus_per_actor
        self.num_cpus = num_cpus
        self.max_retries = max_retries
        self.batch_timeout_s = batch_timeout_s
        self.retried_batches = 0
        self._pools: dict[tuple[str, str, int], list[Any]] = {}

    # -- cluster ---------------------------------------------------------------------------------------
    def _ray(self) -> Any:
        import ray  # optional heavy dependency, needed only for this engine

        where = self.address or "a local cluster"
        try:
            if self.address:
                _check_reachable(self.address)
            if ray.is_initialized():
                return ray
            if self.address:
                ray.init(address=self.address, log_to_driver=False, configure_logging=False)
            else:  # a local cluster on loopback only
                ray.init(
                    num_cpus=self.num_cpus,
                    include_dashboard=False,
                    log_to_driver=False,
                    configure_logging=False,
                    _node_ip_address="127.0.0.1",
                    # the raylet waits for its agents to start; on a loaded machine that takes long
                    _system_config={"agent_register_timeout_ms": 120_000, "raylet_start_wait_time_s": 120},
                )
        except Exception as exc:  # Ray raises bare Exceptions for a node that fails to start
            reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise EngineError(
                f"cannot reach the Ray cluster at {where} ({reason}); start one with `ray start --head` and set "
                "AYA_LAB_RAY_ADDRESS=auto (or ray://HOST:PORT), or unset it to run a local cluster"
            ) from None
        return ray

    def _new_actor(self, ray: Any, model: BatchGenerator) -> Any:
        # On GPUs an actor holds one GPU. CPU actors reserve no CPU in Ray's accounting: the driver runs one
        # batched call at a time, so only one pool computes at once, and an idle pool of another model (a
        # pivot's second hop, a second system) must not block a new one from being scheduled.
        gpus = 1 if ray.cluster_resources().get("GPU", 0) >= 1 else 0
        cls = ray.remote(num_cpus=0, num_gpus=gpus, max_restarts=0)(_Worker)
        return cls.remote(model.spec, model.settings.model_dump(), model.batch_size, self.cpus_per_actor)

    def _pool(self, ray: Any, model: BatchGenerator) -> list[Any]:
        key = (model.spec, model.settings.cache_key(), model.batch_size)
        if key not in self._pools:
            resources = ray.cluster_resources()
            gpus = int(resources.get("GPU", 0))
            if gpus:  # one model per GPU at a time: end the other models' actors first
                self.shutdown()
            count = self.num_actors or gpus or max(1, int(resources.get("CPU", 1)) // self.cpus_per_actor)
            self._pools[key] = [self._new_actor(ray, model) for _ in range(count)]
        return self._pools[key]

    def actors(self, model: BatchGenerator) -> list[ActorHandle[_Worker]]:
        """The live actors serving ``model`` (started on first use)."""
        return list(self._pool(self._ray(), model))

    def shutdown(self) -> None:
        """End every actor this executor started (the cluster itself stays up)."""
        if self._pools:
            import ray

            for pool in self._pools.values():
                for actor in pool:
                    ray.kill(actor)
        self._pools.clear()

    # -- batches ---------------------------------------------------------------------------------------
    def dispatch_size(self, model: BatchGenerator) -> int:
        """``batch_size``: batches of that size spread over the actors (an actor decodes one at a time)."""
        return model.batch_size

    def run(
        self, model: BatchGenerator, batches: Sequence[list[str]], repeat: int
    ) -> Iterator[tuple[list[str], list[GenerationResult]]]:
        """Yield ``(batch, results)`` as batches complete; retries a batch whose actor died."""
        if not batches:
            return
        ray = self._ray()
        pool = self._pool(ray, model)
        queue = list(range(len(batches)))
        tries = [0] * len(batches)
        idle = list(pool)
        running: dict[Any, tuple[int, Any]] = {}
        while queue or running:
            while queue and idle:
                index, actor = queue.pop(0), idle.pop(0)
                running[actor.generate.remote(batches[index], repeat, getattr(model, "stop", None))] = (index, actor)
            done, _ = ray.wait(list(running), num_returns=1, timeout=self.batch_timeout_s)
            if not done:
                raise EngineError(
                    f"{model.spec}: no batch finished on Ray in {self.batch_timeout_s:.0f} s; check that the "
                    "cluster can place the actors (ray status) or raise batch_timeout_s"
                )
            index, actor = running.pop(done[0])
            try:
                results = ray.get(done[0])
            except ray.exceptions.RayActorError:
                self._replace(ray, model, pool, actor, idle)
                tries[index] += 1
                if tries[index] > self.max_retries:
                    raise EngineError(
                        f"{model.spec}: a batch failed on {tries[index]} Ray actors; check the workers' logs "
                        "(out of memory?) or lower the batch size"
                    ) from None
                self.retried_batches += 1
                queue.insert(0, index)
                continue
            idle.append(actor)
            yield batches[index], results

    def _replace(self, ray: Any, model: BatchGenerator, pool: list[Any], dead: Any, idle: list[Any]) -> None:
        fresh = self._new_actor(ray, model)
        pool[pool.index(dead)] = fresh
        idle.append(fresh)
