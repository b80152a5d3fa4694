"""SQLite generation cache, keyed by model fingerprint + rendered prompt + settings + repeat index.

Modes (``AYA_LAB_CACHE_MODE``):

- ``readwrite`` (default): hits are returned, misses are generated and stored;
- ``replay``: a miss is an error naming the prompt (nbval uses this: notebooks re-execute exactly, and
  a changed prompt shows up as a miss instead of silent drift);
- ``off``: no cache at all.

**What the key covers, and what it does not.** A model's fingerprint names its weights (file hash or hub
revision), its engine and version (``llama.cpp-0.3.36``, transformers), its quantization, any adapter's
content hash and the generation settings; it does not name the CPU's instruction set. llama.cpp is compiled
for the machine it installs on, and an AVX2 build and an AVX-512 build round its Q4 arithmetic differently,
so a greedy generation made live on one may differ in wording from one made on the other. A cached
generation is replayed as recorded on any CPU: that is what makes a notebook re-execute identically on
every machine; a new generation (a miss in ``readwrite`` mode) is this machine's.

The file location is ``AYA_LAB_GENERATION_CACHE`` or ``<cache dir>/generations.sqlite``; one model's own
file (notebooks run on a model other than the embedded ones) is :func:`model_cache_file`. The table is
written in WAL mode with a busy timeout, so two processes may write at once; rows are insert-or-ignore
(the first writer wins, as both computed the same deterministic key). Every cache a process holds open is
closed when it exits, so its rows are in the ``.sqlite`` file itself, not left in a ``-wal`` file beside it that
a commit of the file would miss. A file that is not a valid cache is reported with its path, never silently
replaced.

The same file also keeps the multilingual encoder's similarity scores (a ``similarities`` table: encoder,
both texts -> score; :meth:`GenerationCache.get_similarities`). They are a deterministic computation, not a
generation: a miss is computed in every mode (replay included, where nothing is written), and a hit gives
back the score the recording computed, so a notebook that scores thousands of outputs replays in seconds.
Likewise a ``vectors`` table keeps the vectors that retrieval asks for (:meth:`GenerationCache.get_vectors`:
encoder, prefix and text -> float32 vector): the encoder's arithmetic rounds differently on different CPUs
(the third decimal of a score), so a replayed retrieval margin is the recording's on every machine.

:func:`staged_copy` gives a command that commits the scores it measured on (``data/calibration/scores.sqlite``) a
writable copy of the file whose added rows reach the file only when the command succeeds.

:class:`GenerationCache` also implements LangChain's ``BaseCache`` (``lookup``/``update``) so it can be
installed as LangChain's global cache for any other chat model.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import os
import re
import sqlite3
import tempfile
import threading
import time
import weakref
from collections.abc import Iterator, Sequence
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any, Literal

import numpy as np
from langchain_core.caches import BaseCache
from langchain_core.outputs import Generation

from aya_lab.errors import AyaLabError, InputError
from aya_lab.models.result import GenerationResult
from aya_lab.paths import cache_dir
from aya_lab.settings import configure, settings

__all__ = [
    "CacheMode",
    "CacheMissError",
    "CacheCorruptError",
    "GenerationCache",
    "get_default_cache",
    "set_default_cache",
    "cache_mode",
    "model_cache_file",
    "staged_copy",
]

CacheMode = Literal["off", "readwrite", "replay"]


class CacheMissError(AyaLabError, RuntimeError):
    """Replay mode found no cached generation for a prompt."""


class CacheCorruptError(AyaLabError, RuntimeError):
    """The cache file exists but is not a readable generation cache."""


def cache_mode() -> CacheMode:
    """The mode named by ``AYA_LAB_CACHE_MODE`` (default ``readwrite``; see :mod:`aya_lab.settings`)."""
    return settings().cache_mode


_SCHEMA = """
CREATE TABLE IF NOT EXISTS generations (
    key TEXT PRIMARY KEY,
    fingerprint TEXT NOT NULL,
    prompt TEXT NOT NULL,
    settings TEXT NOT NULL,
    repeat INTEGER NOT NULL,
    text TEXT NOT NULL,
    prompt_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    latency_s REAL NOT NULL,
    truncated INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL DEFAULT (datetime('now'))
);
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT OR IGNORE INTO meta VALUES ('aya_lab_cache_version', '1');
"""


_HAS_TABLE = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?"
_HAS_MAIN_TABLE = "SELECT 1 FROM main.sqlite_master WHERE type = 'table' AND name = ?"
_DERIVED = {"similarities": "score REAL NOT NULL", "vectors": "vector BLOB NOT NULL"}
"""The tables of deterministic computations kept beside the generations (name -> value column), created on the
first write: the encoder's similarity scores and the vectors retrieval reads."""


def _key(fingerprint: str, prompt: str, settings: str, repeat: int) -> str:
    payload = json.dumps([fingerprint, prompt, settings, repeat], ensure_ascii=False)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


_OPEN: weakref.WeakSet[GenerationCache] = weakref.WeakSet()
"""The caches this process holds open, closed at exit (:func:`_close_open_caches`)."""


@atexit.register
def _close_open_caches() -> None:
    """Close every cache still open when the interpreter exits: the last connection to a WAL file writes its rows
    into the file and removes the ``-wal`` file beside it, so a recording a notebook kernel made is whole in the
    ``.sqlite`` file that gets committed (a kernel's open connection is otherwise never closed)."""
    for cache in list(_OPEN):
        cache.close()


class GenerationCache(BaseCache):
    """A generation cache in one SQLite file (see module docstring for modes and concurrency)."""

    def __init__(self, path: str | os.PathLike[str], mode: CacheMode | None = None) -> None:
        self.path = Path(path)
        self.mode: CacheMode = mode or cache_mode()
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        if self.mode != "off":
            self._conn = self._connect()
            _OPEN.add(self)

    def _connect(self) -> sqlite3.Connection:
        """Open and check the file; a busy database (another writer setting it up) is waited for."""
        deadline = time.monotonic() + 30.0
        while True:
            try:
                return self._open_checked()
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise CacheCorruptError(
                        f"generation cache {self.path} cannot be opened ({exc}); "
                        "check that no other process holds it, or point AYA_LAB_GENERATION_CACHE elsewhere"
                    ) from None
                time.sleep(0.05)

    def _open_checked(self) -> sqlite3.Connection:
        if self.mode == "replay" and not self.path.exists():
            raise CacheMissError(
                f"replay mode but the generation cache {self.path} does not exist; "
                "run once with AYA_LAB_CACHE_MODE=readwrite to record it"
            )
        self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(self.path, timeout=30.0, check_same_thread=False, isolation_level=None)
        try:
            conn.execute("PRAGMA busy_timeout = 30000")
            if self.mode != "replay":
                conn.execute("PRAGMA journal_mode = WAL")
            # One transaction: other openers see no schema or the whole schema, never half of it.
            conn.execute("BEGIN IMMEDIATE" if self.mode != "replay" else "BEGIN")
            try:
                tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
                foreign = tables and not {"generations", "meta"} <= tables
                if foreign or (not tables and self.mode == "replay"):
                    raise CacheCorruptError(
                        f"generation cache {self.path} has no aya_lab cache table; "
                        "move it aside or point AYA_LAB_GENERATION_CACHE elsewhere"
                    )
                if not tables:
                    for statement in filter(str.strip, _SCHEMA.split(";")):
                        conn.execute(statement)
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            version = conn.execute("SELECT value FROM meta WHERE name = 'aya_lab_cache_version'").fetchone()
            cols = {row[1] for row in conn.execute("PRAGMA table_info(generations)")}
        except sqlite3.OperationalError:
            conn.close()
            raise  # busy: the caller waits and retries
        except sqlite3.DatabaseError as exc:
            conn.close()
            raise CacheCorruptError(
                f"generation cache {self.path} is not a valid cache ({exc}); "
                "move it aside or delete it to start a new one"
            ) from None
        if version is None or "fingerprint" not in cols:
            raise CacheCorruptError(
                f"generation cache {self.path} has no aya_lab cache table; "
                "move it aside or point AYA_LAB_GENERATION_CACHE elsewhere"
            )
        return conn

    # -- aya_lab interface -------------------------------------------------------------------------
    def get(self, fingerprint: str, prompt: str, settings: str, repeat: int) -> GenerationResult | None:
        """The cached result, or ``None`` on a miss (or when the cache is off)."""
        if self._conn is None:
            return None
        with self._lock:
            row = self._conn.execute(
                "SELECT text, prompt_tokens, completion_tokens, latency_s, truncated FROM generations WHERE key = ?",
                (_key(fingerprint, prompt, settings, repeat),),
            ).fetchone()
        if row is None:
            return None
        return GenerationResult(row[0], row[1], row[2], cached=True, latency_s=row[3], truncated=bool(row[4]))

    def check_can_generate(self, model: str, prompt: str) -> None:
        """Raise :class:`CacheMissError` in replay mode (a miss must not reach the model)."""
        if self.mode == "replay":
            shown = prompt if len(prompt) <= 300 else prompt[:150] + " ... " + prompt[-150:]
            raise CacheMissError(
                f"replay mode: no cached generation of {model} for prompt {shown!r}; "
                f"re-record with AYA_LAB_CACHE_MODE=readwrite (cache: {self.path})"
            )

    def put(self, fingerprint: str, prompt: str, settings: str, repeat: int, result: GenerationResult) -> None:
        """Store a result (insert-or-ignore: concurrent writers of one key agree)."""
        if self._conn is None or self.mode == "replay":
            return
        with self._lock:
            self._conn.execute(
                "INSERT OR IGNORE INTO generations (key, fingerprint, prompt, settings, repeat, text, "
                "prompt_tokens, completion_tokens, latency_s, truncated) VALUES (?,?,?,?,?,?,?,?,?,?)",
                (
                    _key(fingerprint, prompt, settings, repeat),
                    fingerprint,
                    prompt,
                    settings,
                    repeat,
                    result.text,
                    result.prompt_tokens,
                    result.completion_tokens,
                    result.latency_s,
                    int(result.truncated),
                ),
            )

    def get_similarities(self, encoder: str, pairs: Sequence[tuple[str, str]]) -> dict[int, float]:
        """The recorded similarity of each pair ``(first, second)`` under ``encoder``, by position (misses left
        out): a deterministic computation, so a miss is computed by the caller in every mode."""
        keys = [_key(encoder, first, second, 0) for first, second in pairs]
        found = self._read_derived("similarities", keys)
        return {i: float(found[key]) for i, key in enumerate(keys) if key in found}

    def put_similarities(self, encoder: str, pairs: Sequence[tuple[str, str]], scores: Sequence[float]) -> None:
        """Record computed similarities (not in replay mode, which never writes)."""
        rows = [(_key(encoder, a, b, 0), float(score)) for (a, b), score in zip(pairs, scores, strict=True)]
        self._write_derived("similarities", rows)

    def get_vectors(self, encoder: str, texts: Sequence[str]) -> dict[int, np.ndarray]:
        """The recorded float32 vector of each text under ``encoder`` (a name that includes the prefix), by
        position (misses left out); as with similarities, a miss is computed by the caller in every mode."""
        keys = [_key(encoder, text, "", 0) for text in texts]
        found = self._read_derived("vectors", keys)
        return {i: np.frombuffer(found[key], dtype="<f4").copy() for i, key in enumerate(keys) if key in found}

    def put_vectors(self, encoder: str, texts: Sequence[str], vectors: np.ndarray) -> None:
        """Record computed vectors, one row of ``vectors`` per text (not in replay mode, which never writes)."""
        if len(vectors) != len(texts):
            raise ValueError(f"put_vectors needs one vector per text; got {len(vectors)} for {len(texts)} texts")
        rows = [(_key(encoder, t, "", 0), np.asarray(v, dtype="<f4").tobytes()) for t, v in zip(texts, vectors)]
        self._write_derived("vectors", rows)

    def _read_derived(self, table: str, keys: list[str]) -> dict[str, Any]:
        """``key -> value`` of the ``keys`` that :data:`_DERIVED` ``table`` holds (none before it exists)."""
        column = _DERIVED[table].split()[0]
        found: dict[str, Any] = {}
        if self._conn is None or not keys:
            return found
        with self._lock:
            if not self._conn.execute(_HAS_TABLE, (table,)).fetchone():
                return found
            for start in range(0, len(keys), 500):
                chunk = keys[start : start + 500]
                marks = ",".join("?" * len(chunk))
                found.update(self._conn.execute(f"SELECT key, {column} FROM {table} WHERE key IN ({marks})", chunk))
        return found

    def _write_derived(self, table: str, rows: list[tuple[str, Any]]) -> None:
        """Add ``(key, value)`` rows to :data:`_DERIVED` ``table`` (insert-or-ignore; never in replay mode)."""
        if self._conn is None or self.mode == "replay" or not rows:
            return
        column = _DERIVED[table].split()[0]
        with self._lock:
            self._conn.execute(f"CREATE TABLE IF NOT EXISTS {table} (key TEXT PRIMARY KEY, {_DERIVED[table]})")
            self._conn.executemany(f"INSERT OR IGNORE INTO {table} (key, {column}) VALUES (?, ?)", rows)

    def __len__(self) -> int:
        if self._conn is None:
            return 0
        with self._lock:
            return self._conn.execute("SELECT COUNT(*) FROM generations").fetchone()[0]

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    # -- LangChain BaseCache interface ---------------------------------------------------------------
    def lookup(self, prompt: str, llm_string: str) -> list[Generation] | None:
        hit = self.get(llm_string, prompt, "", 0)
        return None if hit is None else [Generation(text=hit.text)]

    def update(self, prompt: str, llm_string: str, return_val: Sequence[Generation]) -> None:
        text = "".join(getattr(g, "text", "") for g in return_val)
        self.put(llm_string, prompt, "", 0, GenerationResult(text, 0, 0))

    def clear(self, **kwargs: object) -> None:
        if self._conn is not None and self.mode != "replay":
            with self._lock:
                self._conn.execute("DELETE FROM generations")


_DEFAULT: dict[str, GenerationCache | None] = {}
_DEFAULT_LOCK = threading.Lock()


def default_cache_path() -> Path:
    """``AYA_LAB_GENERATION_CACHE`` (or its override), else ``<cache dir>/generations.sqlite``."""
    return settings().generation_cache or cache_dir() / "generations.sqlite"


def model_cache_file(directory: str | os.PathLike[str], weights: str) -> Path:
    """``<directory>/generations-<weights>.sqlite``: the cache file of one model, named by the weights part of
    its fingerprint (``sha256:…``, ``hub:org/name@rev``) with every character outside ``[A-Za-z0-9._-]``
    replaced by ``-``. Rows inside still carry the full fingerprint (weights + generation settings)."""
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", weights.split("#", 1)[0]).strip("-.")
    if not slug:
        raise InputError(f"weights id {weights!r} gives no file name; pass a fingerprint like 'sha256:abc...'")
    return Path(directory) / f"generations-{slug[:120]}.sqlite"


def get_default_cache() -> GenerationCache | None:
    """The process-wide cache for the current ``AYA_LAB_CACHE_MODE`` and path (``None`` when off)."""
    mode = cache_mode()
    if mode == "off":
        return None
    path = default_cache_path()
    key = f"{mode}:{path}"
    with _DEFAULT_LOCK:  # graph nodes run in threads: one cache object per file and mode
        if key not in _DEFAULT:
            _DEFAULT[key] = GenerationCache(path, mode)
        return _DEFAULT[key]


def set_default_cache(path: str | os.PathLike[str] | None, mode: CacheMode | None = None) -> None:
    """Point the process-wide cache at ``path`` (``None``: the default file) and optionally set the mode,
    for the rest of this process (a settings override: :func:`aya_lab.settings.configure`)."""
    changes: dict[str, object] = {"generation_cache": None if path is None else Path(path).resolve()}
    configure(**changes, **({} if mode is None else {"cache_mode": mode}))


@contextmanager
def staged_copy(path: Path) -> Iterator[GenerationCache]:
    """A writable copy of the cache file ``path`` (empty where there is none) for the block to read and add to.
    Only when the block succeeds and added a row are the added rows written to ``path``, in one SQLite
    transaction (insert-or-ignore: rows are never changed, only added), in rollback-journal mode, so that a reader
    (replay mode) writes nothing beside the file: what a command that commits its scores with its results uses.
    Two commands staging the same file at once each add their rows; neither loses the other's."""
    with tempfile.TemporaryDirectory() as tmp:
        staging = Path(tmp) / path.name
        if path.is_file():  # SQLite's backup: a consistent snapshot even while another command writes to it
            with closing(sqlite3.connect(path, timeout=30.0)) as source, closing(sqlite3.connect(staging)) as copy:
                source.backup(copy)
        before = _rows(staging) if path.is_file() else -1
        cache = GenerationCache(staging, mode="readwrite")
        try:
            yield cache
        finally:
            cache.close()
        if _rows(staging) != before:
            _add_rows(staging, path)


def _add_rows(staging: Path, path: Path) -> None:
    """Every row of the cache file ``staging`` that ``path`` lacks, added to ``path`` (created where missing) in
    one transaction, its tables created as ``staging`` has them where ``path`` has none."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with closing(sqlite3.connect(path, timeout=30.0, isolation_level=None)) as conn:
        conn.execute("PRAGMA busy_timeout = 30000")
        conn.execute("PRAGMA journal_mode = DELETE")
        conn.execute("ATTACH DATABASE ? AS staged", (str(staging),))
        tables = conn.execute("SELECT name, sql FROM staged.sqlite_master WHERE type = 'table'").fetchall()
        conn.execute("BEGIN IMMEDIATE")
        try:
            for name, sql in tables:
                if not conn.execute(_HAS_MAIN_TABLE, (name,)).fetchone():
                    conn.execute(sql)
                columns = ", ".join(f'"{row[1]}"' for row in conn.execute(f'PRAGMA staged.table_info("{name}")'))
                conn.execute(f'INSERT OR IGNORE INTO main."{name}" ({columns}) SELECT {columns} FROM staged."{name}"')
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise


def _rows(path: Path) -> int:
    """How many rows the cache file at ``path`` holds, over all its tables."""
    with closing(sqlite3.connect(path)) as conn:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return sum(conn.execute(f'SELECT COUNT(*) FROM "{name}"').fetchone()[0] for name in tables)
