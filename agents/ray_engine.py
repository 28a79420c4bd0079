"""The Ray engine of ``autoalign batch --engine ray``.

A pool of actors, each loading the models once (one per GPU by default). The driver stays the only
writer of the ledger: it claims an item for each idle actor, waits for any result, records it, and
claims the next. So resumability is the same as with the local engine, and the two can be mixed.
Without ``--address`` Ray starts a local cluster.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any, Callable

from autoalign.agents.ledger import Ledger
from autoalign.config import Config
from autoalign.errors import InputError

logger = logging.getLogger(__name__)

# Environment that must reach the workers (offline flags, the tiny-model home, log level).
_FORWARD_ENV = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "AUTOALIGN_HOME", "AUTOALIGN_LOG", "HF_HOME", "TOKENIZERS_PARALLELISM")


class _Worker:
    """Holds one set of models; processes one item at a time (wrapped with ray.remote below)."""

    def __init__(self, config: Config, out_dir: str, torch_threads: int | None = None):
        from autoalign.models.cache import Models

        if torch_threads:  # a local cluster matches the driver's threads, so results match the local engine
            import torch

            torch.set_num_threads(torch_threads)
        self.config = config
        self.out_dir = Path(out_dir)
        self.models = Models(config)

    def process(self, row: dict[str, Any]) -> dict[str, Any]:
        from autoalign.agents.batch_item import process_item

        return process_item(row, self.config, self.out_dir, self.models)


def _import_ray():
    try:
        import ray
    except ImportError:
        raise InputError("--engine ray needs Ray: pip install 'autoalign[ray]' (or pip install ray)") from None
    return ray


def run_ray(
    ledger: Ledger,
    ids: set[str],
    config: Config,
    out_dir: Path,
    *,
    retries: int,
    address: str | None = None,
    workers: int | None = None,
    gpus_per_worker: float | None = None,
    on_done: Callable[[bool], None] | None = None,
) -> tuple[int, int]:
    ray = _import_ray()
    started_here = False
    if not ray.is_initialized():
        env = {k: os.environ[k] for k in _FORWARD_ENV if k in os.environ}
        ray.init(
            address=address,
            runtime_env={"env_vars": env},
            include_dashboard=False,
            log_to_driver=False,
            ignore_reinit_error=True,
        )
        started_here = True
    try:
        resources = ray.cluster_resources()
        gpus = int(resources.get("GPU", 0))
        if gpus_per_worker is None:
            gpus_per_worker = 1.0 if gpus else 0.0
        if workers is None:
            workers = max(1, int(gpus // gpus_per_worker)) if gpus_per_worker else 1
        if workers < 1:
            raise InputError(f"--workers must be >= 1 (got {workers})")
        logger.info("ray: %d worker(s), %s GPU each, cluster resources %s", workers, gpus_per_worker, resources)
        actor_cls = ray.remote(num_gpus=gpus_per_worker, num_cpus=1)(_Worker)
        threads = None
        if address is None:
            import torch

            threads = torch.get_num_threads()
        pool = [actor_cls.remote(config, str(out_dir), threads) for _ in range(workers)]
        return _drive(ray, pool, ledger, ids, config, retries, on_done)
    finally:
        if started_here:
            ray.shutdown()


def _drive(ray, pool, ledger: Ledger, ids: set[str], config: Config, retries: int, on_done) -> tuple[int, int]:
    from autoalign.agents.batch_item import record_outcome

    counts = {"done": 0, "failed": 0, "retry": 0}
    idle = list(pool)
    in_flight: dict[Any, tuple[Any, dict[str, Any]]] = {}
    config_hash = config.hash()
    while True:
        while idle:
            row = ledger.claim(ids, f"ray:{len(in_flight)}", config_hash)
            if row is None:
                break
            actor = idle.pop()
            row = dict(row)
            in_flight[actor.process.remote(row)] = (actor, row)
        if not in_flight:
            return counts["done"], counts["failed"]
        done, _ = ray.wait(list(in_flight), num_returns=1)
        ref = done[0]
        actor, row = in_flight.pop(ref)
        idle.append(actor)
        result, error = None, None
        try:
            result = ray.get(ref)
        except Exception as exc:  # noqa: BLE001 - a failed item is recorded, the batch goes on
            cause = getattr(exc, "cause", None) or exc
            error = f"{type(cause).__name__}: {cause}"
        counts[record_outcome(ledger, row, result, error, retries, on_done)] += 1
