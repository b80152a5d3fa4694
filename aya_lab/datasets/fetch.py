"""``aya-lab data fetch NAME``: download a test set from its public upstream and lay it out for us.

Each set is fetched from a pinned commit of its upstream repository (raw files over HTTPS; FLORES v1
as one ``.tgz``), re-encoded the way ``$AYA_LAB_DATA_DIR/README.md`` describes (UTF-8, LF line
endings, renamed to ``<set>.<...>.txt``), checked against the SHA256 sums of the copies this project
was built with, and written with a fresh ``SHA256SUMS`` so that :func:`~aya_lab.datasets.parallel.load_parallel`
can verify it later.

The base URL (default ``https://raw.githubusercontent.com``, or env ``AYA_LAB_FETCH_BASE_URL``) is
overridable so that tests can serve a fixture from a loopback HTTP server; no test touches the network.
Simplification: upstream commits are pinned by the short hashes recorded in the data README; if
upstream moves files, fetching fails loudly at the first missing file rather than guessing.
"""

from __future__ import annotations

import hashlib
import io
import re
import shutil
import tarfile
import tempfile
import urllib.error
import urllib.request
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from aya_lab.errors import AyaLabError
from aya_lab.languages import get_language
from aya_lab.paths import data_dir
from aya_lab.settings import settings

__all__ = ["FetchError", "fetch_dataset", "fetchable", "DEFAULT_BASE_URL", "EXPECTED_SHA256"]

DEFAULT_BASE_URL = "https://raw.githubusercontent.com"


class FetchError(AyaLabError, RuntimeError):
    """A download that failed, or files that do not match their expected checksums (one line)."""


@dataclass(frozen=True)
class _Upstream:
    repo: str  # owner/name
    commit: str
    license: str

    def url(self, base: str, path: str) -> str:
        return f"{base.rstrip('/')}/{self.repo}/{self.commit}/{path}"


_NTREX = _Upstream("MicrosoftTranslator/NTREX", "8561f6a6", "CC-BY-SA-4.0")
_FLORES = _Upstream("facebookresearch/flores", "a6c830c6", "CC-BY-SA-4.0")
_LAFAND = _Upstream("masakhane-io/lafand-mt", "d441f8b0", "CC-BY-NC-4.0")

NTREX_LANGUAGES = (
    "eng",
    "amh",
    "deu",
    "fil",
    "fra",
    "hau",
    "ibo",
    "khm",
    "lao",
    "nep",
    "sin",
    "som",
    "swa",
    "yor",
    "zho-CN",
    "zul",
)
FLORES_LANGUAGES = ("ne", "si", "km")
MAFAND_LANGUAGES = ("amh", "hau", "ibo", "swa", "yor", "zul")

# SHA256 of the laid-out files this project was built with (from each set's SHA256SUMS).
EXPECTED_SHA256: dict[str, dict[str, str]] = {
    "ntrex128": {
        "ntrex128.amh.txt": "b4ac379d5a3dde36bb37b2d9109a0ed061f3cc14fac6f82ab48c1b7933a12e46",
        "ntrex128.deu.txt": "d7a6a096326b41d6f8efe4564b3f94deb9bec1596558f861a2c447e2fa0a4683",
        "ntrex128.eng.txt": "3a62f94f5c42a395d4452ec890ca45afc75866b5b4b1d493429433cfe8469fe9",
        "ntrex128.fil.txt": "d6f3856ba4e37ed5e64f0b7b6b233b4cd63fe34aa72b6ff820cfda2437ecd023",
        "ntrex128.fra.txt": "13c86d3b684105d1a8877dc83706aa77287a7e52f0545bd2b4183d7db31bd699",
        "ntrex128.hau.txt": "992d7677d02ba9e676802203eddef0ce7d91b2017537058508c3a8972818d8eb",
        "ntrex128.ibo.txt": "4311260e712612d4c702863aea2d22f888edea14c1af5d449ec56d6a1fe086b3",
        "ntrex128.khm.txt": "e613dd52324773f3899858469928d483b9183ae07cca5cc85b612f450c46cb56",
        "ntrex128.lao.txt": "399fd1d847fb64a39198381569b76eb97be965dd78e6d30556ea0138fe12b9ea",
        "ntrex128.nep.txt": "8089ba8735ab907b3319879d74c674b350acc14ae38f5a04df53f085182c9dda",
        "ntrex128.sin.txt": "bcec24e5dbc18db6be581e267faaf4b84ee77bc9d24cfc6f8109c4c6236a97c6",
        "ntrex128.som.txt": "b6613ab4cb1ec6c384c67a8c38454ed520b1bc67ae477e669fbe00e9d0b38fa4",
        "ntrex128.swa.txt": "3d65dc4450c0e686c80a571feb4f44f74a131866b901738d6e609ae3eeedf008",
        "ntrex128.yor.txt": "00bc71a539e9d95afdd2f7011980d89344c046befcd5b699d6ba6ea39267a4dc",
        "ntrex128.zho-CN.txt": "ae97b7f992cddeee52499862902197ee9e485670cc40519c68b8c1cdc6a6cc88",
        "ntrex128.zul.txt": "c79e3608766a4b3dd8a736b6a5b68f1994b74803e059c0a4bb0f686aaff3bc92",
    },
    "floresv1": {
        "floresv1.dev.km-en.en.txt": "f34be827eb933e52c3065931cf28a7093c2303a2b378f97362a7c714c4bb23a3",
        "floresv1.dev.km-en.km.txt": "977f9f2d736bab323843eebf69dd2c10b5ada82a3689d78c3025a330c0cb9bbd",
        "floresv1.dev.ne-en.doc_id.txt": "6b30446cdf08cf87e823ca24c258d5592f6560d740a57cdd3376baa0901a8708",
        "floresv1.dev.ne-en.en.txt": "2d768d6a0419fa47d6b7a1699ca22efd54abecee02f4f283934a5e70b1c950e2",
        "floresv1.dev.ne-en.ne.txt": "8ec24b1ec4d4d0b6c4619c96ad6e2c1b6c2e3cc9e6d435e8a48cecb19b372f98",
        "floresv1.dev.si-en.doc_id.txt": "c22e97a9bd1d94f177aaee15a889b83da04a96371b6c07d0fc5be1920fbc9bbf",
        "floresv1.dev.si-en.en.txt": "1a1dad7d25e384f1396eafa160b8931cbb7b7668531f7c4bb5f1b63b09687ca3",
        "floresv1.dev.si-en.si.txt": "683ca92b66fa6974cfcb65824b958ca3ad93302cc6ea7829c5db912b341b5c28",
        "floresv1.devtest.km-en.en.txt": "021ae73b036cb9c0fb3e1580f481bf380df8d017e067f985779e816fe6b435ee",
        "floresv1.devtest.km-en.km.txt": "3de3c7cbc8bfc8eadc56a8d7dbbc2bcc23a3dfd6cf8ee8669e2bc94ffaf827c1",
        "floresv1.devtest.ne-en.doc_id.txt": "1f63a11045e9060eba1c59496ab11be1ce0485e1d9ae9907a772dbb86de09ea8",
        "floresv1.devtest.ne-en.en.txt": "a436279201365ea21e0100483bfe62bde932fb21ccb54a100f29ba129d850a54",
        "floresv1.devtest.ne-en.ne.txt": "74d2dfe465cdd71e08dfc4382933bc68a8cdbb619672f9da3c048c87311f5384",
        "floresv1.devtest.si-en.doc_id.txt": "1b9019b69ff921fea814f621925b62d794e806c1ff16bb364a7432346099d068",
        "floresv1.devtest.si-en.en.txt": "769f13f20e75f75ac24d8efba6339417fecc3499f6950e46aa7eec3357aaf8cf",
        "floresv1.devtest.si-en.si.txt": "eabba52cfe9f09b65e69793d928e4e466ffdcf11029718d4aacf1ba27ddbd163",
    },
    "mafand": {
        "mafand.dev.en-amh.amh.txt": "cc39c36f0d014178d2dbfb54df4c636d557d720d44ec9597a972383d4563a4f1",
        "mafand.dev.en-amh.en.txt": "33452fc372551e980a53646f828a310fa279654861b0cfd600571881c44f9b14",
        "mafand.dev.en-hau.en.txt": "6dcc2b92a9aa7c06fbd69a6f925f9717516f5f8bb93a48738b0322f06797b6ee",
        "mafand.dev.en-hau.hau.txt": "62afaee1d1f955289089f909f5f4c5e806ab346eb8b2927d8e8b0894d157c5e5",
        "mafand.dev.en-ibo.en.txt": "99510f60b4d13d8e8cd0eb762a323ab641bc604d96f545b89ec5de02821e6548",
        "mafand.dev.en-ibo.ibo.txt": "8f8e8abf461d8a4bd02dea14f4af4886b44f56ab316b2d170ee98b10ed18e912",
        "mafand.dev.en-swa.en.txt": "1424c085d0a628a3edf3ed683b89fb184811d2c21f7363f179d5b4305222770d",
        "mafand.dev.en-swa.swa.txt": "7cc6dd699ac52b86d99ee79667a01dd9981149c484970cec92d679c065960ff6",
        "mafand.dev.en-yor.en.txt": "cca844e0ff24ec194bc26bb4516829958d5ca107e1be37e10bd5427e7a04297e",
        "mafand.dev.en-yor.yor.txt": "daba8dc557860a498d907c1e80acc53a312a3c4db51dac5a99fb9d7742448f40",
        "mafand.dev.en-zul.en.txt": "4c2fb2ca804ba51e4df7d3ed2dee0a00e489f74b3af1d52846f2a2036a8f7d9a",
        "mafand.dev.en-zul.zul.txt": "194eb4ab90fdd49140645437534c9fb4b901b8523ec7e940afaef6057041bdba",
        "mafand.test.en-amh.amh.txt": "4bc52f1cc6922b5543fc9ddd5ddae13f45aec4e436706df6eebff355f476193d",
        "mafand.test.en-amh.en.txt": "9fa8bd589aa9642910de2bbb1f7483b8b1d915c72177e07d34be91e343c8076e",
        "mafand.test.en-hau.en.txt": "c824cb0a241e903f4e783b0cc88c1396e63c152e9c802e1da959589730779ead",
        "mafand.test.en-hau.hau.txt": "e1f71b7790cbe0360d7b551d422e9df0757cb5effe9f22c8d50481db665ef81c",
        "mafand.test.en-ibo.en.txt": "456746a8a4e9edfa816735e7829b14d64d5cd645fce2046738c12a3462d69936",
        "mafand.test.en-ibo.ibo.txt": "d90aeb7e455a9045e1db61ccf929fd75a42a514ebbc569b0fc110ab214f94beb",
        "mafand.test.en-swa.en.txt": "584837ea4a3f4729277e8d5ce8f3b65ab7ef2d5ac28451e0cdcf711266bc68a1",
        "mafand.test.en-swa.swa.txt": "ec71f7403fb22ac71aba757c841a10ac9501efa2690045013449080a2821d98c",
        "mafand.test.en-yor.en.txt": "14450871324f84a06d555c24ce443255eae7d17cf573c24b7a371b2e6b7815ff",
        "mafand.test.en-yor.yor.txt": "4afdb8b53e51847cd1d5589abc7e89de3dd5efa3d538f7dd8b6e80b85ff93730",
        "mafand.test.en-zul.en.txt": "14b62afd42624cea5d56413874bfac2aa1e6649ba4896e72bd43e6a911f84b54",
        "mafand.test.en-zul.zul.txt": "f809e5939908a42adb81e428e9ebc2dddaebde75068610e2bb329ce8dc4f0e06",
    },
}


def fetchable() -> list[str]:
    """Names of the sets ``fetch_dataset`` can download."""
    return ["ntrex128", "floresv1", "mafand"]


def _get(url: str, timeout: float) -> bytes:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:  # noqa: S310 - http(s) only
            return response.read()
    except urllib.error.HTTPError as exc:
        raise FetchError(f"download failed: {url} answered HTTP {exc.code}") from None
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise FetchError(f"download failed: {url} ({reason}); check the network or --base-url") from None


def _text(data: bytes) -> bytes:
    """UTF-8, LF line endings, a final newline (the layout every loader expects)."""
    text = data.decode("utf-8-sig").replace("\r\n", "\n").replace("\r", "\n")
    if text and not text.endswith("\n"):
        text += "\n"
    return text.encode("utf-8")


def _pick(requested: Iterable[str] | None, available: tuple[str, ...], name: str) -> list[str]:
    if requested is None:
        return list(available)
    by_iso = {get_language(code).code: code for code in available}
    out = []
    for lang in requested:
        iso = get_language(lang).code
        if iso not in by_iso:
            names = ", ".join(sorted(by_iso))
            raise FetchError(f"{name} has no language {lang!r} to fetch; available: {names}")
        out.append(by_iso[iso])
    return out


def _plan_ntrex(base, langs, timeout) -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    wanted = _pick(langs, NTREX_LANGUAGES, "ntrex128")
    if "eng" not in wanted:
        wanted.insert(0, "eng")
    for code in wanted:
        remote = "NTREX-128/newstest2019-src.eng.txt" if code == "eng" else f"NTREX-128/newstest2019-ref.{code}.txt"
        files[f"ntrex128.{code}.txt"] = _text(_get(_NTREX.url(base, remote), timeout))
    for extra in ("DOCUMENT_IDS.tsv", "LANGUAGES.tsv"):
        files[extra] = _text(_get(_NTREX.url(base, extra), timeout))
    for extra in ("LICENSE.md", "README.md"):
        try:
            files[extra] = _get(_NTREX.url(base, extra), timeout)
        except FetchError:
            pass
    return files


_FLORES_MEMBER = re.compile(r"(?:.*/)?wikipedia\.(dev|devtest)\.([a-z]{2})-en\.([a-z_]+?)(?:\.txt)?")


def _plan_flores(base, langs, timeout) -> dict[str, bytes]:
    wanted = set(_pick(langs, FLORES_LANGUAGES, "floresv1"))
    url = _FLORES.url(base, "previous_releases/floresv1/data/flores_test_sets.tgz")
    blob = _get(url, timeout)
    files: dict[str, bytes] = {}
    try:
        with tarfile.open(fileobj=io.BytesIO(blob), mode="r:gz") as tar:
            for member in tar.getmembers():
                if not member.isfile():
                    continue
                m = _FLORES_MEMBER.fullmatch(member.name)
                if m is None:
                    if member.name.lower().endswith("readme.md"):
                        files["README_flores_test_sets.md"] = _member_bytes(tar, member)
                    continue
                split, lang, side = m.groups()
                if lang not in wanted:
                    continue
                side = "doc_id" if "doc" in side else side
                if side not in (lang, "en", "doc_id"):
                    continue
                files[f"floresv1.{split}.{lang}-en.{side}.txt"] = _text(_member_bytes(tar, member))
    except tarfile.TarError as exc:
        raise FetchError(f"{url} is not a readable .tgz ({exc})") from None
    if not any(name.endswith(".txt") for name in files):
        raise FetchError(f"{url} held no wikipedia.<split>.<xx>-en.<lang> files for {sorted(wanted)}")
    return files


def _plan_mafand(base, langs, timeout) -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    for code in _pick(langs, MAFAND_LANGUAGES, "mafand"):
        for split in ("dev", "test"):
            for side in (code, "en"):
                remote = f"data/text_files/en-{code}/{split}.{side}"
                files[f"mafand.{split}.en-{code}.{side}.txt"] = _text(_get(_LAFAND.url(base, remote), timeout))
    try:
        files["README.md"] = _get(_LAFAND.url(base, "README.md"), timeout)
    except FetchError:
        pass
    return files


_PLANS = {"ntrex128": _plan_ntrex, "floresv1": _plan_flores, "mafand": _plan_mafand}


def fetch_dataset(
    name: str,
    dest: str | Path | None = None,
    *,
    base_url: str | None = None,
    languages: Iterable[str] | None = None,
    verify: bool = True,
    expected_sha256: Mapping[str, str] | None = None,
    timeout: float = 60.0,
) -> Path:
    """Download ``name`` into ``dest`` (default ``$AYA_LAB_DATA_DIR/<name>``); return the folder.

    ``languages`` limits the download (any accepted spelling). ``verify`` compares every laid-out text
    file that has an expected checksum (``expected_sha256``, default :data:`EXPECTED_SHA256`) and
    writes nothing on a mismatch. Files are written only after every download succeeded.
    """
    key = name.strip().lower()
    if key not in _PLANS:
        raise FetchError(f"cannot fetch {name!r}; fetchable sets: {', '.join(fetchable())}")
    if dest is None:
        root = data_dir()
        if root is None:
            raise FetchError("AYA_LAB_DATA_DIR is not set; set it or pass --dest DIR")
        dest = root / key
    dest = Path(dest).expanduser()
    base = base_url or settings().fetch_base_url or DEFAULT_BASE_URL
    files = _PLANS[key](base, languages, timeout)
    if verify:
        expected = EXPECTED_SHA256.get(key, {}) if expected_sha256 is None else expected_sha256
        bad = [
            fname
            for fname, data in files.items()
            if fname in expected and hashlib.sha256(data).hexdigest() != expected[fname]
        ]
        if bad:
            raise FetchError(
                f"{key}: {len(bad)} downloaded file(s) differ from the expected checksums "
                f"({', '.join(sorted(bad)[:5])}); nothing was written (use --no-verify to keep them anyway)"
            )
    dest.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=dest) as tmp:
        for fname, data in files.items():
            (Path(tmp) / fname).write_bytes(data)
        for fname in files:
            shutil.move(str(Path(tmp) / fname), dest / fname)
    sums = {}
    sums_file = dest / "SHA256SUMS"
    if sums_file.exists():
        for line in sums_file.read_text(encoding="utf-8").splitlines():
            if line.strip():
                digest, fname = line.split(maxsplit=1)
                sums[fname.strip()] = digest
    for fname, data in files.items():
        if fname.endswith(".txt"):
            sums[fname] = hashlib.sha256(data).hexdigest()
    sums_file.write_text("".join(f"{d}  {f}\n" for f, d in sorted(sums.items())), encoding="utf-8")
    return dest


def _member_bytes(tar: tarfile.TarFile, member: tarfile.TarInfo) -> bytes:
    """The bytes of a regular file in ``tar`` (a member that is no regular file is a broken archive)."""
    handle = tar.extractfile(member)
    if handle is None:
        raise tarfile.TarError(f"{member.name} is not a regular file")
    return handle.read()
