"""Language codes and names: one table, normalised to ISO 639-3.

Users say "Swahili", ``sw``, ``swa`` or ``swh``; datasets say ``swa`` (NTREX) or ``ne`` (FLORES v1);
NLLB wants ``swh_Latn`` and M2M100 wants ``sw``. Every public function takes any of these spellings and
goes through :func:`get_language`, which returns one :class:`Language` or raises
:class:`UnknownLanguageError` naming the value and the closest known names.

Simplification: macrolanguages are folded into the individual language a workplace would mean
(``swa`` -> ``swh`` Swahili, ``nep`` -> ``npi`` Nepali, ``zho`` -> ``cmn`` Mandarin, ``ara`` -> ``arb``,
``fil`` ~ ``tgl``); the original spelling is kept as an alias so datasets still find their files.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field

from aya_lab.errors import AyaLabError

__all__ = [
    "Language",
    "UnknownLanguageError",
    "get_language",
    "normalize_language",
    "language_name",
    "LANGUAGES",
]


class UnknownLanguageError(AyaLabError, ValueError):
    """Raised for a language code or name that is not in the table."""


@dataclass(frozen=True)
class Language:
    """One language: ISO 639-3 code, English name, and the codes other tools use for it."""

    code: str  # ISO 639-3 (individual language)
    name: str
    iso1: str | None  # ISO 639-1, when there is one
    script: str  # ISO 15924
    nllb: str  # NLLB-200 / FLORES-200 code
    m2m: str | None  # M2M100 code (None: not covered)
    lingua: str | None  # lingua-language-detector's Language enum name (None: not covered)
    spaced: bool = True  # words separated by spaces (False: BLEU with a whitespace tokenizer is unreliable)
    sacrebleu_tokenizer: str = "13a"
    aliases: tuple[str, ...] = field(default_factory=tuple)
    low_resource: bool = False

    def __str__(self) -> str:
        return f"{self.name} ({self.code})"


def _L(code, name, iso1, script, nllb, m2m, lingua, *, spaced=True, tok="13a", aliases=(), low=False):
    return Language(code, name, iso1, script, nllb, m2m, lingua, spaced, tok, tuple(aliases), low)


LANGUAGES: tuple[Language, ...] = (
    # high-resource
    _L("eng", "English", "en", "Latn", "eng_Latn", "en", "ENGLISH"),
    _L("fra", "French", "fr", "Latn", "fra_Latn", "fr", "FRENCH", aliases=("fre",)),
    _L("deu", "German", "de", "Latn", "deu_Latn", "de", "GERMAN", aliases=("ger",)),
    _L("spa", "Spanish", "es", "Latn", "spa_Latn", "es", "SPANISH"),
    _L("por", "Portuguese", "pt", "Latn", "por_Latn", "pt", "PORTUGUESE"),
    _L("ita", "Italian", "it", "Latn", "ita_Latn", "it", "ITALIAN"),
    _L("nld", "Dutch", "nl", "Latn", "nld_Latn", "nl", "DUTCH", aliases=("dut",)),
    _L("pol", "Polish", "pl", "Latn", "pol_Latn", "pl", "POLISH"),
    _L("rus", "Russian", "ru", "Cyrl", "rus_Cyrl", "ru", "RUSSIAN"),
    _L("ukr", "Ukrainian", "uk", "Cyrl", "ukr_Cyrl", "uk", "UKRAINIAN"),
    _L("tur", "Turkish", "tr", "Latn", "tur_Latn", "tr", "TURKISH"),
    _L("arb", "Arabic", "ar", "Arab", "arb_Arab", "ar", "ARABIC", aliases=("ara",)),
    _L("hin", "Hindi", "hi", "Deva", "hin_Deva", "hi", "HINDI"),
    _L("ben", "Bengali", "bn", "Beng", "ben_Beng", "bn", "BENGALI", aliases=("Bangla",)),
    _L(
        "cmn",
        "Chinese",
        "zh",
        "Hans",
        "zho_Hans",
        "zh",
        "CHINESE",
        spaced=False,
        tok="zh",
        aliases=("zho", "zho-CN", "zh-CN", "chi", "Mandarin", "Chinese (Simplified)"),
    ),
    _L("jpn", "Japanese", "ja", "Jpan", "jpn_Jpan", "ja", "JAPANESE", spaced=False, tok="char"),
    _L("kor", "Korean", "ko", "Kore", "kor_Hang", "ko", "KOREAN", tok="char"),
    _L("vie", "Vietnamese", "vi", "Latn", "vie_Latn", "vi", "VIETNAMESE"),
    _L("ind", "Indonesian", "id", "Latn", "ind_Latn", "id", "INDONESIAN"),
    _L("tha", "Thai", "th", "Thai", "tha_Thai", "th", "THAI", spaced=False, tok="char"),
    # low-resource (in the external test sets or common in African / South and South-East Asian workplaces)
    _L("swh", "Swahili", "sw", "Latn", "swh_Latn", "sw", "SWAHILI", aliases=("swa", "Kiswahili"), low=True),
    _L("yor", "Yoruba", "yo", "Latn", "yor_Latn", "yo", "YORUBA", low=True),
    _L("hau", "Hausa", "ha", "Latn", "hau_Latn", "ha", None, low=True),
    _L("ibo", "Igbo", "ig", "Latn", "ibo_Latn", "ig", None, low=True),
    _L("amh", "Amharic", "am", "Ethi", "amh_Ethi", "am", None, low=True),
    _L("zul", "Zulu", "zu", "Latn", "zul_Latn", "zu", "ZULU", aliases=("isiZulu",), low=True),
    _L("xho", "Xhosa", "xh", "Latn", "xho_Latn", "xh", "XHOSA", aliases=("isiXhosa",), low=True),
    _L("som", "Somali", "so", "Latn", "som_Latn", "so", "SOMALI", low=True),
    _L("sna", "Shona", "sn", "Latn", "sna_Latn", None, "SHONA", low=True),
    _L("tgl", "Tagalog", "tl", "Latn", "tgl_Latn", "tl", "TAGALOG", aliases=("fil", "Filipino"), low=True),
    _L("khm", "Khmer", "km", "Khmr", "khm_Khmr", "km", None, spaced=False, tok="char", low=True),
    _L("lao", "Lao", "lo", "Laoo", "lao_Laoo", "lo", None, spaced=False, tok="char", low=True),
    _L("npi", "Nepali", "ne", "Deva", "npi_Deva", "ne", None, aliases=("nep",), low=True),
    _L("sin", "Sinhala", "si", "Sinh", "sin_Sinh", "si", None, aliases=("Sinhalese",), low=True),
    _L("kin", "Kinyarwanda", "rw", "Latn", "kin_Latn", None, None, low=True),
    _L("lug", "Luganda", "lg", "Latn", "lug_Latn", "lg", "GANDA", aliases=("Ganda",), low=True),
    _L("wol", "Wolof", "wo", "Latn", "wol_Latn", "wo", None, low=True),
)


def _index() -> dict[str, Language]:
    idx: dict[str, Language] = {}
    for lang in LANGUAGES:
        keys = {lang.code, lang.name, lang.nllb, *lang.aliases}
        if lang.iso1:
            keys.add(lang.iso1)
        for key in keys:
            idx[key.casefold()] = lang
    return idx


_INDEX = _index()


def get_language(value: str | Language) -> Language:
    """Return the :class:`Language` for a code (ISO 639-1/3, NLLB, dataset alias) or an English name.

    Raises :class:`UnknownLanguageError` with the closest known spellings when nothing matches.
    """
    if isinstance(value, Language):
        return value
    key = str(value).strip().casefold().replace("_", "-") if value is not None else ""
    for candidate in (key, key.replace("-", "_")):
        if candidate in _INDEX:
            return _INDEX[candidate]
    close = difflib.get_close_matches(key, list(_INDEX), n=6, cutoff=0.6)
    names = list(dict.fromkeys(_INDEX[c].name for c in close))[:3]
    hint = f" (did you mean {', '.join(repr(n) for n in names)}?)" if names else ""
    raise UnknownLanguageError(
        f"unsupported language {value!r}{hint}; use an ISO code or name from `aya-lab data languages`"
    )


def normalize_language(value: str | Language) -> str:
    """Return the ISO 639-3 code for any accepted spelling of a language."""
    return get_language(value).code


def language_name(value: str | Language) -> str:
    """Return the English name for any accepted spelling of a language."""
    return get_language(value).name
