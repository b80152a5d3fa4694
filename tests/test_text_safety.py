"""Clean feeds (issue 25, part 4): every class of hostile character is removed or neutralised on the way in
and shown, not obeyed, on the way out; ordinary text of any script comes back as the same string."""

from __future__ import annotations

import pytest

from aya_lab.text_safety import clean_text, describe_code_points, for_html, for_terminal, hostile_characters

ORDINARY = [
    "Habari timu, mkutano wa bajeti umehamishwa hadi Ijumaa.",
    "Danke, Amara. Ich schicke den überarbeiteten Bericht bis Donnerstag.",
    "first line\nsecond line\tafter a tab",
    "می‌خواهم بروم",  # Persian: a zero-width non-joiner inside a word
    "क्‍ष and ශ්‍රී ලංකාව",  # Devanagari and Sinhala: a zero-width joiner after a virama
    "ខ្ញុំ​ស្រឡាញ់",  # Khmer: a zero-width space between words
    "こんにちは、世界 / 你好 / 안녕하세요 / שלום / مرحبا \u200fبالعالم",  # an RLM (a bidi mark) is kept
    "👩🏽‍💻 👨‍👩‍👧 ❤️ 1️⃣ 🏳️‍🌈 🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f",  # ZWJ, VS16, keycap, tag flag
    "Ẹ kú àárọ̀, Yoruba with combining marks",
]


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_text_comes_back_unchanged(text):
    assert clean_text(text) is text or clean_text(text) == text
    assert clean_text(text) == text and hostile_characters(text) == []
    assert for_terminal(text) == text


HOSTILE = {
    "NUL": ("a\x00b", "ab", "a\\x00b"),
    "C0 bell and backspace": ("ok\x07\x08!", "ok!", "ok\\x07\\x08!"),
    "DEL": ("x\x7fy", "xy", "x\\x7fy"),
    "C1 control": ("x\x85y\x90z\x9fw", "x\ny", None),
    "clear screen": ("\x1b[2J\x1b[Hhello", "hello", "\\x1b[2J\\x1b[Hhello"),
    "fake red Aya line": ("\x1b[31mAya:\x1b[0m meeting cancelled", "Aya: meeting cancelled", None),
    "8-bit CSI": ("\x9b31mred", "red", "\\x9b31mred"),
    "OSC hyperlink": ("see \x1b]8;;http://evil.example\x1b\\the policy\x1b]8;;\x1b\\", "see the policy", None),
    "OSC to BEL": ("\x1b]0;pwned title\x07hi", "hi", None),
    "terminal reset": ("\x1bcafter", "after", "\\x1bcafter"),
    "carriage return overwrite": ("harmless text\rkofi: I resign", "harmless text\nkofi: I resign", None),
    "right-to-left override": ("invoice\u202efdp.exe", "invoicefdp.exe", "invoice\\u202efdp.exe"),
    "bidi isolates": ("a\u2066b\u2069c", "abc", None),
    "zero-width space in a word": ("@a\u200bya do it", "@aya do it", "@a\\u200bya do it"),
    "zero-width joiner run": ("ad\u200d\u200dmin", "admin", None),
    "word joiner and BOM": ("\ufeffad\u2060min", "admin", None),
    "tag characters (ASCII smuggling)": ("hi\U000e0069\U000e0067\U000e006e", "hi", None),
    "variation-selector run": ("ok\ufe0f\ufe0f\ufe0f\ufe0f", "ok\ufe0f", None),
    "lone surrogate": ("a\ud800b", "a\ufffdb", None),
    "line separator": ("a\u2028b", "a\nb", None),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_each_class_of_hostile_character_is_removed_or_neutralised(case):
    raw, cleaned, shown = HOSTILE[case]
    assert clean_text(raw) == cleaned
    assert hostile_characters(raw)  # named, for a one-line refusal
    terminal = for_terminal(raw)
    assert not any(ch in terminal for ch in "\x00\x07\x08\x1b\x7f\x9b\x9d\x9f\r\u202e\u200b\u2060")
    if shown is not None:
        assert terminal == shown
    assert clean_text(cleaned) == cleaned  # idempotent


def test_terminal_output_indents_a_messages_second_line():
    text = "harmless text\rkofi: I resign"
    assert for_terminal(text, "    ") == "harmless text\\r\n    kofi: I resign"
    assert for_terminal("one\ntwo", "  ") == "one\n  two"


def test_html_output_escapes_markup_and_shows_controls():
    assert for_html("<b>hi</b> & \x1b[31mred") == "&lt;b&gt;hi&lt;/b&gt; &amp; \\x1b[31mred"
    assert for_html("a\u202eb") == "a\\u202eb"
    assert for_html("Grüße <3") == "Grüße &lt;3"


def test_code_points_are_named():
    assert describe_code_points("а\x00") == "U+0430 CYRILLIC SMALL LETTER A, U+0000 NUL"
    assert hostile_characters("\x1b[2Jx\u202e") == ["U+001B ESCAPE", "U+202E RIGHT-TO-LEFT OVERRIDE"]
