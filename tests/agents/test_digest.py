"""Summary replies: the window they cover, who said what, action items by rule, the reply when a draft is withheld."""

from aya_lab.agents.digest import doubted_english, rule_action_items, who_said_what, window_line, with_digest
from aya_lab.agents.summarizer import SummaryResult
from aya_lab.messages import ChatMessage


def msg(sender, content, lang="eng", english=None, at="2026-12-05T10:02:00+00:00"):
    translations = {"eng": english} if english is not None else {}
    return ChatMessage(sender=sender, content=content, lang=lang, translations=translations, created_at=at)


WINDOW = [
    msg("amara", "Habari timu, mkutano umehamishwa.", "swh", "[not translated] Habari timu, mkutano umehamishwa."),
    msg("lena", "Ich schicke den Bericht.", "deu", "I'll send the report by Thursday."),
    msg("kofi", "Sophie, can you book the room for Friday?", at="2026-12-05T10:05:00+00:00"),
    msg(
        "sophie",
        "Parfait.",
        "fra",
        "[unverified] Perfect. I will call the client. | original: Parfait.",
        at="2026-12-05T10:06:00+00:00",
    ),
]


def test_the_window_line_says_how_many_who_and_when():
    assert window_line(WINDOW) == "The last 4 messages (amara, lena, kofi, sophie):"
    assert window_line(WINDOW[:1]) == "The last message (amara):"


def test_who_said_what_uses_verified_english_marks_a_flagged_draft_and_an_original_with_its_language():
    assert who_said_what(WINDOW) == [
        "- amara [swh]: Habari timu, mkutano umehamishwa.",
        "- lena: I'll send the report by Thursday.",
        "- kofi: Sophie, can you book the room for Friday?",
        "- sophie [fra, unverified]: Perfect. I will call the client.",  # the flagged draft, marked as in the feeds
    ]
    forged = msg("x", "Bonjour.", "fra", "[unverified] Hello. | original: Au revoir.")  # not the message's original
    assert doubted_english(forged) is None and who_said_what([forged]) == ["- x [fra]: Bonjour."]
    assert doubted_english(WINDOW[1]) is None and doubted_english(WINDOW[0]) is None
    spaced = msg("y", "Merci. ", "fra", "[unverified] Thanks. | original: Merci. ")
    assert doubted_english(spaced) == "Thanks."  # the original as the guard quoted it, spaces and all


def test_action_items_are_commitments_and_requests_to_a_named_colleague():
    assert rule_action_items(WINDOW) == [
        ("lena", "send the report by Thursday"),
        ("sophie", "book the room for Friday"),
        ("sophie", "call the client (unverified translation)"),  # from a flagged draft: marked as its line is
    ]
    assert rule_action_items(WINDOW[:1]) == []  # a withheld translation states nothing


def test_a_withheld_draft_becomes_who_said_what_and_a_kept_one_gets_the_window_and_the_rule_items():
    ids = [m.id for m in WINDOW]
    withheld = SummaryResult("I can't", "draft", [("x", "y")], 4, ids, withheld="copies the transcript")
    reply = with_digest(withheld, WINDOW)
    assert reply.text.splitlines()[1:] == [
        *who_said_what(WINDOW),
        "Action items:",
        "- lena: send the report by Thursday",
        "- sophie: book the room for Friday",
        "- sophie: call the client (unverified translation)",
    ]
    assert reply.action_items == rule_action_items(WINDOW) and any("who said what" in n for n in reply.notes)
    kept = with_digest(SummaryResult("x", "Plans changed.", [("x", "y")], 4, ids), WINDOW)
    assert kept.text.splitlines()[1:3] == ["Plans changed.", "Action items:"]
    nothing = SummaryResult("There are no messages to summarize yet.", "", [], 0, [])
    assert with_digest(nothing, WINDOW) is nothing
