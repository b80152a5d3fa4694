"""Fixtures of the browser tests: JupyterLab on loopback with a token, and headless Chromium.

``lab`` serves a temporary folder holding a copy of notebook 01 trimmed to the cells the room panel
needs (their code untouched; outputs and saved widget state removed), so the committed notebook is never
modified; the kernel reads and writes a temporary copy of ``notebooks/generations.sqlite``
(``AYA_LAB_CACHE_MODE=readwrite``: a new message generates). The notebook keeps its room under the
temporary folder too (``AYA_LAB_RUNS_DIR``), so nbval or a re-recording of notebook 01 may run at the same time.
``browser`` is Debian's ``chromium`` driven through ``chromedriver`` by Selenium, with no downloads
(Selenium Manager is never asked). Both are shut down in teardown, whatever happened. The tests skip
only when Chromium or chromedriver is missing (``make browser-deps`` installs them).
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
# the machine's network is closed: without these Chromium waits on refused background connections
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1500,1000",
)
LAB_START_TIMEOUT_S = 180
# the cells of notebook 01 the panel needs, found by a line of their code: models, the room, the reopened
# room, the panel (the conversation and analysis cells are left out: every one would generate)
PANEL_CELLS = ("setup_notebook()", "ChatRoom.open(path, models=models, users=", "reopened = ChatRoom.open(", ".panel()")
# JupyterLab's notification plugin: no news feed, no update check (nothing to fetch, no toast)
_QUIET_SETTINGS = {"fetchNews": "false", "checkForUpdates": False}


def require_browser() -> None:
    """Skip the calling test when Debian's Chromium or its driver is not installed."""
    for path, package in ((CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")):
        if not path.is_file():
            pytest.skip(f"{path} missing: install Debian's {package} (`make browser-deps`)")


@dataclass(frozen=True)
class Lab:
    """A running JupyterLab: its base URL, token, served folder and server log."""

    url: str
    token: str
    root: Path
    log: Path

    def notebook_url(self, name: str) -> str:
        return f"{self.url}/lab/tree/{name}?token={self.token}"

    def api(self, path: str, method: str = "GET") -> object:
        """Call the server's REST API (token in the header); the decoded JSON, ``None`` for no body."""
        req = urllib.request.Request(
            f"{self.url}/api/{path}", method=method, headers={"Authorization": f"token {self.token}"}
        )
        with urllib.request.urlopen(req, timeout=10) as resp:
            body = resp.read()
        return json.loads(body) if body else None

    def log_tail(self, chars: int = 3000) -> str:
        return self.log.read_text(errors="replace")[-chars:] if self.log.exists() else ""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that is free now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def panel_notebook(source: Path, dest_dir: Path, markers: tuple[str, ...] = PANEL_CELLS) -> Path:
    """Write to ``dest_dir`` a copy of ``source`` holding only its title, the code cells containing each of
    ``markers`` (unchanged) and the markdown cell before each; no outputs, counts or saved widget state.
    A marker found in no code cell fails the test, naming it (the notebook changed: update the markers)."""
    nb = nbformat.read(source, as_version=4)
    keep = {0}
    for marker in markers:
        found = [i for i, c in enumerate(nb.cells) if c.cell_type == "code" and marker in c.source]
        if not found:
            pytest.fail(f"no code cell of {source.name} contains {marker!r}; update PANEL_CELLS in {__file__}")
        keep |= {found[0]} | ({found[0] - 1} if nb.cells[found[0] - 1].cell_type == "markdown" else set())
    nb.cells = [c for i, c in enumerate(nb.cells) if i in keep]
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    nb.metadata.pop("widgets", None)
    dest = dest_dir / source.name
    nbformat.write(nb, dest)
    return dest


def copy_sqlite(source: Path, dest: Path) -> None:
    """A consistent copy of the SQLite file ``source`` (its WAL included), read through a read-only
    connection: a notebook being recorded may be writing to it."""
    src = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
    dst = sqlite3.connect(dest)
    try:
        src.backup(dst)
    finally:
        dst.close()
        src.close()


def lab_env(tmp: Path, cache: Path) -> dict[str, str]:
    """The server's (and so the kernel's) environment: this one, with Jupyter's own folders and the
    generation cache and the notebook's rooms (``AYA_LAB_RUNS_DIR``) under ``tmp``; ``AYA_LAB_DATA_DIR``
    passes through."""
    env = dict(os.environ)
    for var, name in (
        ("JUPYTER_CONFIG_DIR", "config"),
        ("JUPYTER_RUNTIME_DIR", "runtime"),
        ("JUPYTERLAB_SETTINGS_DIR", "settings"),
        ("JUPYTERLAB_WORKSPACES_DIR", "workspaces"),
        ("IPYTHONDIR", "ipython"),
        ("AYA_LAB_RUNS_DIR", "runs"),
    ):
        env[var] = str(tmp / name)
        (tmp / name).mkdir(exist_ok=True)
    quiet = tmp / "settings" / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings"
    quiet.parent.mkdir(parents=True, exist_ok=True)
    quiet.write_text(json.dumps(_QUIET_SETTINGS))
    env.update(AYA_LAB_GENERATION_CACHE=str(cache), AYA_LAB_CACHE_MODE="readwrite", TOKENIZERS_PARALLELISM="false")
    return env


def _wait_until_up(proc: subprocess.Popen, lab: Lab) -> None:
    deadline = time.monotonic() + LAB_START_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"JupyterLab exited with {proc.returncode} before serving:\n{lab.log_tail()}")
        try:
            lab.api("status")
            return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            time.sleep(1)
    pytest.fail(f"JupyterLab did not answer on {lab.url} within {LAB_START_TIMEOUT_S} s:\n{lab.log_tail()}")


def _stop(proc: subprocess.Popen, lab: Lab) -> None:
    """Shut the kernels down through the API, then the server, then anything left in its process group."""
    try:
        for kernel in lab.api("kernels") or []:  # type: ignore[union-attr]
            lab.api(f"kernels/{kernel['id']}", method="DELETE")
    except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
        pass
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
    try:
        os.killpg(proc.pid, signal.SIGKILL)  # the server's own group (start_new_session): stray kernels
    except ProcessLookupError:
        pass


@pytest.fixture
def lab(tmp_path: Path) -> Iterator[Lab]:
    """JupyterLab on 127.0.0.1 serving ``tmp_path/lab`` with the panel's cells of notebook 01."""
    require_browser()
    root = tmp_path / "lab"
    root.mkdir()
    panel_notebook(ROOT / "notebooks" / "01_chat_room.ipynb", root)
    cache = tmp_path / "generations.sqlite"
    copy_sqlite(ROOT / "notebooks" / "generations.sqlite", cache)
    port, token = free_port(), secrets.token_hex(16)
    lab = Lab(url=f"http://127.0.0.1:{port}", token=token, root=root, log=tmp_path / "jupyterlab.log")
    cmd = [sys.executable, "-m", "jupyterlab", "--no-browser", "--allow-root", "--ServerApp.ip=127.0.0.1"]
    cmd += [f"--ServerApp.port={port}", "--ServerApp.port_retries=0", f"--ServerApp.token={token}"]
    cmd += [f"--ServerApp.root_dir={root}"]
    with open(lab.log, "wb") as log:
        proc = subprocess.Popen(
            cmd, cwd=root, env=lab_env(tmp_path, cache), stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
    try:
        _wait_until_up(proc, lab)
        yield lab
    finally:
        _stop(proc, lab)


@pytest.fixture
def browser(monkeypatch: pytest.MonkeyPatch) -> Iterator[object]:
    """Headless Chromium (a fresh profile, removed afterwards) under Selenium, quit in teardown."""
    require_browser()
    monkeypatch.setenv("SE_OFFLINE", "true")  # Selenium Manager must never download anything
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="aya-lab-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in (*CHROMIUM_FLAGS, f"--user-data-dir={profile}"):
        options.add_argument(flag)
    try:
        # Chromium's crash reporter keeps its folder under XDG_CONFIG_HOME: the throwaway profile, not ~/.config
        env = {**os.environ, "XDG_CONFIG_HOME": profile, "XDG_CACHE_HOME": profile}
        driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER), env=env), options=options)
        try:
            yield driver
        finally:
            driver.quit()
    finally:
        shutil.rmtree(profile, ignore_errors=True)
