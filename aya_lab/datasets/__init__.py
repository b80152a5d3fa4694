"""Data sets: parallel test sets by name (:mod:`~.parallel`), their documented fetch (:mod:`~.fetch`),
and the sets this repository wrote itself (:mod:`~.project`). Depends only on the core modules."""

from aya_lab.datasets.fetch import fetch_dataset
from aya_lab.datasets.parallel import DatasetError, ParallelSet, available_pairs, list_datasets, load_parallel

__all__ = ["DatasetError", "ParallelSet", "available_pairs", "fetch_dataset", "list_datasets", "load_parallel"]
