"""A term glossary for reading a policy question in English: dictionary-based query translation.

The handbook is English and the multilingual encoder separates a Swahili question's section from the rest by a
smaller margin than an English one's (notebook 06). :class:`Glossary` reads a question in French, German,
Spanish or Swahili and gives the English handbook terms its words name — "Je, posho ya kila siku ni kiasi
gani?" -> ``"per-diem"`` — so the section index can search the question and those terms together
(:meth:`aya_lab.rag.sections.SectionIndex.search` takes several texts of one question).

The glossary is data (``data/glossary/policy_terms.tsv``, tab-separated: ``eng fra deu spa swh``, variants
separated by ``|``; how it was written: ``data/glossary/README.md``). A variant matches a question when it is
one of its words, when it is a phrase of several words found in it, or, for variants of at least
:data:`MIN_INFIX` letters, anywhere inside a word (German compounds, Swahili verb forms: ``idhinish`` in
``kuidhinishwa``). The question's language is lingua's among English and the glossary's languages; an English
question, or one lingua cannot place, gets no terms.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from aya_lab.errors import InputError
from aya_lab.langid import detect
from aya_lab.languages import get_language
from aya_lab.paths import glossary_dir

__all__ = ["GLOSSARY_LANGS", "MIN_INFIX", "Glossary", "default_glossary", "load_glossary", "question_language"]

GLOSSARY_LANGS = ("fra", "deu", "spa", "swh")
"""The languages the glossary reads (its columns after ``eng``)."""
MIN_INFIX = 5
"""A variant this long or longer also matches inside a word."""
_WORDS = re.compile(r"\w+", re.UNICODE)


@dataclass(frozen=True)
class Glossary:
    """English terms and, per language, the variants that name them (lower case)."""

    entries: tuple[tuple[str, dict[str, tuple[str, ...]]], ...]

    def english_terms(self, text: str, lang: str) -> str | None:
        """The English terms ``text`` (in ``lang``) names, in glossary order, space-separated; ``None`` when
        none, or when ``lang`` is not one of :data:`GLOSSARY_LANGS`."""
        if lang not in GLOSSARY_LANGS:
            return None
        words = _WORDS.findall(text.casefold())
        joined, vocabulary = f" {' '.join(words)} ", set(words)
        found = [eng for eng, variants in self.entries if any(_matches(v, joined, vocabulary) for v in variants[lang])]
        return " ".join(dict.fromkeys(found)) or None


def _matches(variant: str, joined: str, vocabulary: set[str]) -> bool:
    if " " in variant:
        return f" {variant} " in joined
    return variant in vocabulary or (len(variant) >= MIN_INFIX and variant in joined)


def load_glossary(path: str | Path) -> Glossary:
    """A glossary file (see the module docstring); a malformed line is a one-line error naming it."""
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read the glossary ({exc}); give a UTF-8 TSV file") from None
    rows = list(csv.reader(lines, delimiter="\t"))
    if not rows or tuple(rows[0]) != ("eng", *GLOSSARY_LANGS):
        raise InputError(f"{path}: the header must be 'eng\t{chr(9).join(GLOSSARY_LANGS)}'")
    entries = []
    for number, row in enumerate(rows[1:], start=2):
        if len(row) != 1 + len(GLOSSARY_LANGS) or not all(cell.strip() for cell in row):
            raise InputError(f"{path}:{number}: write {1 + len(GLOSSARY_LANGS)} non-empty tab-separated fields")
        variants = {
            lang: tuple(v.strip().casefold() for v in cell.split("|") if v.strip())
            for lang, cell in zip(GLOSSARY_LANGS, row[1:], strict=True)
        }
        entries.append((row[0].strip().casefold(), variants))
    return Glossary(tuple(entries))


@cache
def default_glossary() -> Glossary:
    """The shipped glossary, read once per process."""
    return load_glossary(glossary_dir() / "policy_terms.tsv")


def question_language(text: str) -> str | None:
    """The question's language among English and :data:`GLOSSARY_LANGS` (lingua), or ``None``."""
    found = detect(text, "eng", *GLOSSARY_LANGS)
    codes = {get_language(lang).lingua: lang for lang in ("eng", *GLOSSARY_LANGS)}
    return codes.get(found) if found else None
