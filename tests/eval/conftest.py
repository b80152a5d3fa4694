"""Fixtures for tests/eval: a miniature AYA_LAB_DATA_DIR (sentences written for these tests)."""

from __future__ import annotations

import hashlib
import json
import unicodedata
from pathlib import Path

ENG = [
    "The meeting has been moved to Friday morning.",
    "Please send the report before the end of the day.",
    "Our team will visit the new office next week.",
    "The printer on the second floor is broken again.",
    "Lunch will be served in the main hall at noon.",
    "Do not forget to sign the attendance sheet.",
    "The manager approved the travel budget yesterday.",
    "We need two more chairs for the training room.",
    "The network will be down for maintenance tonight.",
    "Thank you all for your hard work this month.",
    "The new schedule starts on the first of June.",
    "Please keep the kitchen clean after you use it.",
]
SWA = [
    "Mkutano umehamishwa hadi Ijumaa asubuhi.",
    "Tafadhali tuma ripoti kabla ya mwisho wa siku.",
    "Timu yetu itatembelea ofisi mpya wiki ijayo.",
    "Printa iliyo kwenye ghorofa ya pili imeharibika tena.",
    "Chakula cha mchana kitatolewa katika ukumbi mkuu saa sita.",
    "Usisahau kusaini karatasi ya mahudhurio.",
    "Meneja aliidhinisha bajeti ya safari jana.",
    "Tunahitaji viti viwili zaidi kwa chumba cha mafunzo.",
    "Mtandao utazimwa kwa matengenezo usiku wa leo.",
    "Asanteni nyote kwa kazi ngumu mwezi huu.",
    "Ratiba mpya inaanza tarehe moja Juni.",
    "Tafadhali weka jikoni safi baada ya kuitumia.",
]
FRA = [
    "La réunion a été déplacée à vendredi matin.",
    "Veuillez envoyer le rapport avant la fin de la journée.",
    "Notre équipe visitera le nouveau bureau la semaine prochaine.",
    "L'imprimante du deuxième étage est encore en panne.",
    "Le déjeuner sera servi dans la grande salle à midi.",
    "N'oubliez pas de signer la feuille de présence.",
    "Le directeur a approuvé le budget de voyage hier.",
    "Il nous faut deux chaises de plus pour la salle de formation.",
    "Le réseau sera coupé pour maintenance ce soir.",
    "Merci à tous pour votre travail ce mois-ci.",
    "Le nouvel horaire commence le premier juin.",
    "Veuillez garder la cuisine propre après usage.",
]
# Yoruba written with decomposed accents (NFD), as some upstream lines are: loaders must NFC them.
YOR = [
    unicodedata.normalize("NFD", s)
    for s in [
        "Wọ́n ti gbé ìpàdé náà lọ sí òwúrọ̀ Ẹtì.",
        "Ẹ jọ̀wọ́ ẹ fi ìròyìn náà ránṣẹ́ kí ọjọ́ tó parí.",
        "Ẹgbẹ́ wa yóò ṣàbẹ̀wò sí ọ́fíìsì tuntun ní ọ̀sẹ̀ tó ń bọ̀.",
        "Ẹ̀rọ ìtẹ̀wé tó wà ní àjà kejì tún ti bàjẹ́.",
        "A ó pín oúnjẹ ọ̀sán ní gbọ̀ngàn ńlá ní ọ̀sán gangan.",
        "Ẹ má gbàgbé láti fọwọ́ sí ìwé ìwọlé.",
        "Alákòóso fọwọ́ sí ìnáwó ìrìn-àjò ní àná.",
        "A nílò àga méjì sí i fún yàrá ìdánilẹ́kọ̀ọ́.",
        "Nẹ́tíwọ̀ọ̀kì yóò dúró fún àtúnṣe ní alẹ́ òní.",
        "Ẹ ṣé o gbogbo yín fún iṣẹ́ takuntakun oṣù yìí.",
        "Ètò tuntun bẹ̀rẹ̀ ní ọjọ́ kìíní oṣù Òkúdu.",
        "Ẹ jọ̀wọ́ ẹ jẹ́ kí ilé ìdáná mọ́ lẹ́yìn lílò rẹ̀.",
    ]
]
DOCS = ["doc.a"] * 5 + ["doc.b"] * 4 + ["doc.c"] * 3


def _write(folder: Path, name: str, lines: list[str], crlf: bool = False) -> None:
    nl = "\r\n" if crlf else "\n"
    (folder / name).write_bytes((nl.join(lines) + nl).encode("utf-8"))


def _sums(folder: Path) -> None:
    lines = [
        f"{hashlib.sha256(p.read_bytes()).hexdigest()}  {p.name}\n"
        for p in sorted(folder.iterdir())
        if p.suffix == ".txt"
    ]
    (folder / "SHA256SUMS").write_text("".join(lines), encoding="utf-8")


def build_mini_data(root: Path) -> Path:
    """Write ntrex128 (eng swa fra yor), floresv1-like and mafand-like miniature sets under ``root``."""
    nt = root / "ntrex128"
    nt.mkdir(parents=True)
    for code, lines in (("eng", ENG), ("swa", SWA), ("fra", FRA), ("yor", YOR)):
        _write(nt, f"ntrex128.{code}.txt", lines)
    _write(nt, "DOCUMENT_IDS.tsv", DOCS)
    _sums(nt)
    fl = root / "floresv1"
    fl.mkdir()
    for split, sl in (("dev", slice(0, 6)), ("devtest", slice(6, 12))):
        _write(fl, f"floresv1.{split}.ne-en.en.txt", ENG[sl])
        _write(fl, f"floresv1.{split}.ne-en.ne.txt", [f"नेपाली वाक्य {i}" for i in range(6)])
        _write(fl, f"floresv1.{split}.ne-en.doc_id.txt", DOCS[sl])
    _sums(fl)
    mf = root / "mafand"
    mf.mkdir()
    for split in ("dev", "test"):
        _write(mf, f"mafand.{split}.en-swa.en.txt", ENG)
        _write(mf, f"mafand.{split}.en-swa.swa.txt", SWA)
    _sums(mf)
    return root


import pytest  # noqa: E402


@pytest.fixture
def mini_data(tmp_path, monkeypatch):
    """AYA_LAB_DATA_DIR pointing at a fresh miniature data folder."""
    root = build_mini_data(tmp_path / "data")
    monkeypatch.setenv("AYA_LAB_DATA_DIR", str(root))
    return root


@pytest.fixture
def real_data_dir():
    """The machine's external data folder, or skip."""
    import os

    path = os.environ.get("AYA_LAB_DATA_DIR") or "/work/shared/data"
    if not (Path(path) / "ntrex128" / "ntrex128.eng.txt").exists():
        pytest.skip("external test data not present")
    return Path(path)


def write_faithfulness_pairs(tmp_path: Path) -> Path:
    """A small labelled faithfulness set (eng-fra; 12 calibration and 6 holdout pairs of each label) in
    ``tmp_path``; its path."""
    lines = []
    pairs = [("The meeting moved to Friday.", "La réunion a été déplacée à vendredi."),
             ("Please send me the invoice.", "Envoie-moi la facture, s'il te plaît."),
             ("The printer is broken again.", "L'imprimante est encore en panne.")] * 6  # fmt: skip
    for i, (en, fr) in enumerate(pairs):
        base = {"split": "calibration" if i < 12 else "holdout", "src": "eng", "tgt": "fra", "source": en}
        lines.append({**base, "id": f"f{i}", "kind": "faithful", "label": "faithful", "output": fr})
        other = "Le camion de livraison est arrivé avec deux heures de retard ce matin."
        lines.append({**base, "id": f"u{i}", "kind": "example_echo", "label": "unfaithful", "output": other})
    path = tmp_path / "pairs.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path
