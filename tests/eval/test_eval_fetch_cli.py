"""`aya-lab data fetch` against a loopback HTTP server, and the CLI's commands and error lines."""

from __future__ import annotations

import argparse
import functools
import hashlib
import http.server
import io
import tarfile
import threading

import pytest
from conftest import ENG, SWA

from aya_lab.cli import main
from aya_lab.datasets.cli import command_group
from aya_lab.datasets.fetch import FetchError, fetch_dataset
from aya_lab.datasets.parallel import load_parallel
from aya_lab.eval.task_cli import register_tasks


@pytest.fixture
def server(tmp_path):
    """Serve tmp_path/www on 127.0.0.1 laid out like raw.githubusercontent.com."""
    www = tmp_path / "www"
    nt = www / "MicrosoftTranslator/NTREX/8561f6a6"
    (nt / "NTREX-128").mkdir(parents=True)
    (nt / "NTREX-128/newstest2019-src.eng.txt").write_bytes(("\r\n".join(ENG) + "\r\n").encode())
    (nt / "NTREX-128/newstest2019-ref.swa.txt").write_bytes(("\r\n".join(SWA) + "\r\n").encode())
    (nt / "DOCUMENT_IDS.tsv").write_text("\n".join(["d1"] * len(ENG)) + "\n")
    (nt / "LANGUAGES.tsv").write_text("eng\tEnglish\nswa\tSwahili\n")
    lf = www / "masakhane-io/lafand-mt/d441f8b0/data/text_files/en-swa"
    lf.mkdir(parents=True)
    for split in ("dev", "test"):
        (lf / f"{split}.en").write_text("\n".join(ENG) + "\n")
        (lf / f"{split}.swa").write_text("\n".join(SWA))
    fl = www / "facebookresearch/flores/a6c830c6/previous_releases/floresv1/data"
    fl.mkdir(parents=True)
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name, lines in (
            ("wikipedia.devtest.ne-en.en", ENG),
            ("wikipedia.devtest.ne-en.ne", SWA),
            ("wikipedia.dev.ne-en.en", ENG),
            ("wikipedia.dev.ne-en.ne", SWA),
        ):
            data = ("\n".join(lines) + "\n").encode()
            info = tarfile.TarInfo(f"flores_test_sets/{name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    (fl / "flores_test_sets.tgz").write_bytes(buf.getvalue())
    handler = functools.partial(_QuietHandler, directory=str(www))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def test_fetch_lays_out_files_like_the_shared_data(server, tmp_path, monkeypatch):
    root = tmp_path / "data"
    out = fetch_dataset("ntrex128", root / "ntrex128", base_url=server, languages=["sw"], verify=False)
    assert (out / "ntrex128.eng.txt").read_bytes() == ("\n".join(ENG) + "\n").encode()  # CRLF -> LF
    assert "ntrex128.swa.txt" in (out / "SHA256SUMS").read_text()
    fetch_dataset("mafand", root / "mafand", base_url=server, languages=["swh"], verify=False)
    fetch_dataset("floresv1", root / "floresv1", base_url=server, languages=["ne"], verify=False)
    monkeypatch.setenv("AYA_LAB_DATA_DIR", str(root))
    assert load_parallel("ntrex128", "eng", "swh", verify=True).references == SWA
    assert load_parallel("mafand", "swh", "eng", split="dev", verify=True).sources == SWA
    assert load_parallel("floresv1", "npi", "eng", verify=True).references == ENG


def test_fetch_verifies_checksums_and_reports_failures(server, tmp_path):
    good = {"ntrex128.eng.txt": hashlib.sha256(("\n".join(ENG) + "\n").encode()).hexdigest()}
    fetch_dataset("ntrex128", tmp_path / "ok", base_url=server, languages=["eng"], expected_sha256=good)
    with pytest.raises(FetchError, match="differ from the expected checksums .*ntrex128.eng.txt"):
        fetch_dataset(
            "ntrex128",
            tmp_path / "bad",
            base_url=server,
            languages=["eng"],
            expected_sha256={"ntrex128.eng.txt": "0" * 64},
        )
    assert not (tmp_path / "bad" / "ntrex128.eng.txt").exists()
    with pytest.raises(FetchError, match="HTTP 404"):
        fetch_dataset("mafand", tmp_path / "m", base_url=server, languages=["yor"], verify=False)
    with pytest.raises(FetchError, match="no language 'deu'"):
        fetch_dataset("mafand", tmp_path / "m", base_url=server, languages=["deu"])


def test_cli_data_and_eval_commands(mini_data, tmp_path, capsys):
    assert main(["data", "list"]) == 0
    out = capsys.readouterr().out
    assert "ntrex128   present" in out and "eng fra swh yor" in out
    assert main(["data", "languages"]) == 0
    assert "swh" in capsys.readouterr().out
    res = tmp_path / "r.csv"
    argv = ["eval", "run", "translation", "--systems", "copy,p=pivot:copy", "--dataset", "ntrex128"]
    argv += ["--pairs", "eng-swh,swh-fra", "--n", "6", "--n-bootstrap", "50", "--n-ar", "50", "--no-progress"]
    assert main([*argv, "--out", str(res)]) == 0
    assert res.exists() and not (tmp_path / "r.partial.jsonl").exists()  # the checkpoint goes once saved
    assert "eng-swh" in capsys.readouterr().out
    assert main(["eval", "compare", str(res), str(res), "--n-bootstrap", "50", "--n-ar", "50"]) == 0
    assert "p_bootstrap" in capsys.readouterr().out


TRANSLATE = ["eval", "run", "translation", "--dataset", "ntrex128"]


@pytest.mark.parametrize(
    "argv, expected",
    [
        ([*TRANSLATE, "--systems", "copy"], "no language pairs given for ntrex128"),
        ([*TRANSLATE, "--systems", "copy", "--pairs", "eng-hau"], "available: "),
        ([*TRANSLATE, "--systems", "zzz:1", "--pairs", "eng-swh"], "unknown system 'zzz:1'"),
        ([*TRANSLATE, "--systems", "copy", "--pairs", "eng-qqq"], "unsupported language"),
    ],
)
def test_cli_bad_input_is_one_line(mini_data, capsys, argv, expected):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and expected in err and err.count("\n") == 1


def test_register_shares_the_eval_group():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command")
    ev = command_group(sub, "eval", "evaluate")
    ev.add_parser("summarize")
    register_tasks(sub)
    assert {"summarize", "run", "compare"} <= set(command_group(sub, "eval", "x").choices)
