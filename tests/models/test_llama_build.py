"""The llama.cpp library the Makefile builds runs on the machine that built it: on x86-64 it holds no AMX tile
instructions, which ``-march=native`` turns on for Intel Xeons since Sapphire Rapids and which a virtual machine
reporting AMX without running it answers with SIGILL at the first matrix product (docs/ENGINES.md)."""

from __future__ import annotations

import platform
import shutil
import subprocess
from pathlib import Path

import pytest

AMX_MNEMONICS = ("ldtilecfg", "tileloadd", "tilestored", "tilezero", "tdpbssd", "tdpbf16ps")


def cpu_library() -> Path:
    """The installed llama-cpp-python's CPU backend (``libggml-cpu.so``)."""
    import llama_cpp

    found = sorted((Path(llama_cpp.__file__).parent / "lib").glob("libggml-cpu.so*"))
    if not found:
        pytest.fail(f"no libggml-cpu.so in {Path(llama_cpp.__file__).parent / 'lib'}")
    return found[0]


@pytest.mark.skipif(platform.machine().lower() not in ("x86_64", "amd64"), reason="AMX is an x86-64 extension")
@pytest.mark.skipif(shutil.which("objdump") is None, reason="needs objdump (binutils)")
def test_the_llama_cpp_build_uses_no_amx_tile_instructions():
    library = cpu_library()
    listing = subprocess.run(["objdump", "-d", "--no-show-raw-insn", str(library)], capture_output=True, text=True,
                             check=True).stdout  # fmt: skip
    instructions = [line.split("\t")[-1] for line in listing.splitlines() if "\t" in line]
    amx = sum(1 for ins in instructions if ins.split(" ", 1)[0] in AMX_MNEMONICS)
    assert instructions, f"objdump listed no instructions of {library}"
    assert amx == 0, (
        f"{library} holds {amx} AMX tile instructions (a build from before the Makefile turned AMX off, reused "
        "from pip's cache): run `.venv/bin/pip cache remove llama_cpp_python`, remove .venv and run `make install`"
    )
