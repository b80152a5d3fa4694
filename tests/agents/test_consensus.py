"""Several drafts of a translation: rotated few-shot prompts, draft 0 (or the one most like the source)
delivered, its agreement a doubt."""

import pytest

from aya_lab.agents.consensus import Drafted, consensus, rotated_prompts
from aya_lab.agents.guard import UNVERIFIED, TranslationGuard
from aya_lab.agents.user import MAX_DRAFTS, MAX_SENTENCES, UserAgent, message_sentences
from aya_lab.errors import InputError
from aya_lab.messages import ChatMessage
from aya_lab.models.fake import FakeChatModel
from aya_lab.prompts import load_pool, load_prompt
from aya_lab.room.parameters import DeliveryParameters

COMPLETION = "user_translate/completion"
MESSAGE = ChatMessage(sender="lena", content="Der Drucker ist kaputt.", lang="deu")


def test_rotated_prompts_turn_the_pool_by_an_equal_step_and_keep_the_prompt_first():
    prompt = load_prompt(COMPLETION)
    pool = load_pool("translations")
    variants = rotated_prompts(prompt, 3)
    step = len(pool) // 3
    assert variants[0] is prompt and [v.variant for v in variants[1:]] == ["completion+rotated1", "completion+rotated2"]
    assert [dict(r) for r in variants[1].examples.records] == pool[step:] + pool[:step]
    assert [dict(r) for r in variants[2].examples.records] == pool[2 * step :] + pool[: 2 * step]
    assert len({v.content_hash for v in variants}) == 3  # three prompts, three cache keys
    assert rotated_prompts(prompt, 1) == [prompt]
    assert rotated_prompts(prompt, len(pool) + 1) == [prompt]  # fewer records than drafts: nothing to rotate


def test_a_prompt_without_examples_writes_one_draft():
    chat = load_prompt("user_translate/baseline")
    assert rotated_prompts(chat, 3) == [chat]
    model = FakeChatModel(default="The printer is broken.")
    got = UserAgent(model, chat, drafts=3).draft_many(MESSAGE, ["eng"])
    assert got["eng"] == Drafted("The printer is broken.", None, ("The printer is broken.",))
    assert model.batches == [1]


def test_consensus_delivers_draft_zero_with_its_agreement_with_the_others():
    drafts = ["The printer on floor two is broken.", "The meeting is on Friday.", "The printer on floor two is broken!"]
    got = consensus(drafts)
    assert got.text == drafts[0] and got.drafts == tuple(drafts)
    assert 0.4 < got.agreement < 0.7  # one close draft, one unrelated: about half
    assert consensus(["Same.", "Same.", "Same."]).agreement == 1.0
    assert consensus(["The meeting is on Friday.", "The invoice was paid."]).agreement < 0.3
    assert consensus(["alone"]) == Drafted("alone", None, ("alone",))
    with pytest.raises(ValueError, match="at least one draft"):
        consensus([])


def test_select_similarity_delivers_the_draft_most_like_its_source_with_its_own_agreement():
    source = "Der Drucker im zweiten Stock ist kaputt."
    drafts = ["The meeting is on Friday.", "The printer on the second floor is broken.", "The printer is broken."]
    got = consensus(drafts, source, "similarity")
    assert got.chosen == 1 and got.text == drafts[1] and got.drafts == tuple(drafts)
    assert got.agreement == consensus([drafts[1], drafts[0], drafts[2]]).agreement  # the chosen one's, not draft 0's
    assert consensus(drafts, source) == consensus(drafts) and consensus(drafts).chosen == 0  # default: draft 0
    assert consensus(["Same.", "Same."], source, "similarity").chosen == 0  # a tie goes to the earlier draft
    assert consensus(["alone"], source, "similarity") == Drafted("alone", None, ("alone",))
    with pytest.raises(ValueError, match="needs the source text"):
        consensus(drafts, " ", "similarity")
    with pytest.raises(ValueError, match="select must be one of first, similarity; got 'best'"):
        consensus(drafts, source, "best")


def _by_rotation(answers, target):
    """Rules answering each rotation of the completion prompt (6 pool records, 3 drafts: step 2) from
    German into ``target`` with its own answer: the prompt's first example tells the rotations apart (a batch
    is generated in length order, so scripted responses in order would not say which draft is which)."""
    pool = load_pool("translations")
    return [(f"<human> German: {pool[2 * j]['deu']}\n{target}:", a) for j, a in enumerate(answers)]


def test_draft_many_sends_every_draft_of_every_language_in_one_batch():
    english = ["The printer is broken.", "The printer is broken", "Invoice paid."]
    model = FakeChatModel(rules=_by_rotation(english, "English") + _by_rotation(["Imprimante."] * 3, "French"))
    agent = UserAgent(model, COMPLETION, drafts=3)
    assert agent.translate_many(MESSAGE, ["deu"]) == {"deu": MESSAGE.content} and model.batches == []
    got = agent.draft_many(MESSAGE, ["eng", "fra", "deu"])
    assert model.batches == [6]  # 3 drafts x (eng, fra); German is the message's own language
    assert got["eng"] == consensus(english) and got["eng"].text == english[0]
    assert 0.3 < got["eng"].agreement < 0.8 and got["fra"].agreement == 1.0
    assert got["deu"] == Drafted(MESSAGE.content)
    assert all(p.endswith("German: Der Drucker ist kaputt.\nEnglish:") for p in model.prompts if "English:" in p[-9:])


def test_draft_texts_batches_every_draft_of_every_text():
    model = FakeChatModel(rules=_by_rotation(["One.", "Two?", "One."], "English"))
    got = UserAgent(model, COMPLETION, drafts=3).draft_texts(["Eins.", "Eins, bitte."], "deu", "eng")
    assert model.batches == [6] and [d.text for d in got] == ["One.", "One."]
    assert got[0].drafts == ("One.", "Two?", "One.") and got[0].agreement < 1.0
    assert UserAgent(model, COMPLETION, drafts=3).draft_texts(["Hallo"], "deu", "deu") == [Drafted("Hallo")]


def test_the_agent_delivers_the_draft_its_select_names():
    english = ["Invoice paid.", "The printer is broken.", "Invoice paid!"]
    model = FakeChatModel(rules=_by_rotation(english, "English"))
    got = UserAgent(model, COMPLETION, drafts=3, select="similarity").draft_many(MESSAGE, ["eng"])["eng"]
    assert got.text == "The printer is broken." and got.chosen == 1 and model.batches == [3]
    assert UserAgent(model, COMPLETION, drafts=3).draft_many(MESSAGE, ["eng"])["eng"].text == "Invoice paid."
    with pytest.raises(InputError, match="select must be one of first, similarity; got 'medoid'"):
        UserAgent(model, COMPLETION, drafts=3, select="medoid")
    with pytest.raises(ValueError, match="select"):
        DeliveryParameters(select="medoid")
    assert DeliveryParameters(select="similarity").select == "similarity" and DeliveryParameters().select == "first"


@pytest.mark.parametrize("drafts", [0, MAX_DRAFTS + 1])
def test_a_draft_count_out_of_range_is_one_line_naming_it(drafts):
    with pytest.raises(InputError, match=f"drafts must be from 1 to {MAX_DRAFTS}; got {drafts}"):
        UserAgent(FakeChatModel(default="x"), COMPLETION, drafts=drafts)
    with pytest.raises(ValueError, match="drafts"):
        DeliveryParameters(drafts=drafts)


def test_the_room_parameter_allows_what_the_agent_allows():
    field = DeliveryParameters.model_fields["drafts"]
    bounds = {type(m).__name__: m for m in field.metadata}
    assert bounds["Le"].le == MAX_DRAFTS and bounds["Ge"].ge == 1


def test_drafts_that_disagree_are_a_doubt_under_the_threshold():
    guard = TranslationGuard(("length",), agreement=0.7)
    source, draft = "Der Drucker ist kaputt.", "The printer is broken."
    assert guard.deliverable(source, draft, "deu", "eng", agreement=0.71) == (draft, None)
    assert guard.deliverable(source, draft, "deu", "eng") == (draft, None)  # one draft: no agreement, no doubt
    text, note = guard.deliverable(source, draft, "deu", "eng", agreement=0.52)
    assert text.startswith(f"{UNVERIFIED} {draft}") and "agreement: the translator's drafts agree 0.52 < 0.70" in note
    withheld = guard.check(source, "x", "deu", "eng", agreement=0.2)
    assert not withheld.ok and not withheld.flagged  # withheld stays withheld
    assert TranslationGuard(("length",)).check(source, draft, "deu", "eng", agreement=0.0).doubts == ()


def test_a_prompt_choosing_examples_per_message_shows_each_draft_the_next_most_alike():
    prompt = load_prompt("user_translate/nearest")
    variants = rotated_prompts(prompt, 3)
    assert variants[0] is prompt and [v.examples.skip for v in variants] == [0, 5, 10]
    assert [v.variant for v in variants[1:]] == ["nearest+skip5", "nearest+skip10"]
    assert len({v.content_hash for v in variants}) == 3
    agent = UserAgent(FakeChatModel(default="x"), prompt, drafts=3)
    shown = [
        {line for line in agent.conversation(MESSAGE.content, "deu", "eng", (), p)[0].content.splitlines()[:-2]}
        for p in agent.prompts
    ]
    assert all(len(s) == 10 for s in shown) and not (shown[0] & shown[1] or shown[1] & shown[2] or shown[0] & shown[2])


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        ("Der Drucker ist kaputt. Ich rufe morgen an!", ["Der Drucker ist kaputt.", " ", "Ich rufe morgen an!"]),
        ("T'as reçu le devis ? J'ai rien vu.\nMerci", ["T'as reçu le devis ?", " ", "J'ai rien vu.\nMerci"]),
        ("¿Quién firmó?  ¿Nadie?", ["¿Quién firmó?", "  ", "¿Nadie?"]),
        ("Zug um 7.46. 3 Tickets per Mail.", ["Zug um 7.46.", " ", "3 Tickets per Mail."]),
        ("Dr. Weber kommt z. B. morgen.", ["Dr. Weber kommt z. B. morgen."]),  # abbreviations stay whole
        ("Rechnung Nr. 4471 offen.", ["Rechnung Nr. 4471 offen."]),
        ("see you. then we talk", ["see you. then we talk"]),  # no capital: not a sentence's start
        ("", [""]),
    ],
)
def test_message_sentences_cut_at_sentence_ends_and_keep_every_character(text, parts):
    got = message_sentences(text)
    assert got == parts and "".join(got) == text


def test_sentence_by_sentence_drafts_each_sentence_alone_and_joins_them_with_the_messages_gaps():
    message = ChatMessage(sender="lena", content="Der Drucker ist kaputt.\nIch rufe morgen an!", lang="deu")
    rules = [("German: Der Drucker ist kaputt.\nEnglish:", "The printer is broken."),
             ("German: Ich rufe morgen an!\nEnglish:", "I will call tomorrow!")]  # fmt: skip
    model = FakeChatModel(rules=rules)
    got = UserAgent(model, COMPLETION, drafts=3, sentences=True).draft_many(message, ["eng"])["eng"]
    assert model.batches == [6]  # 2 sentences x 3 drafts, one batch
    assert got.text == "The printer is broken.\nI will call tomorrow!" and got.drafts == (got.text,) * 3
    assert got.agreement == 1.0
    assert not any("Ich rufe" in p and "kaputt" in p for p in model.prompts)  # no prompt held the whole message
    whole = FakeChatModel(default="The printer is broken and I call tomorrow.")
    assert UserAgent(whole, COMPLETION, drafts=3).draft_many(message, ["eng"])["eng"].text.endswith("tomorrow.")
    assert whole.batches == [3] and all(
        p.endswith("German: Der Drucker ist kaputt. Ich rufe morgen an!\nEnglish:") for p in whole.prompts
    )
    assert DeliveryParameters(sentences=True).sentences and not DeliveryParameters().sentences


def test_a_message_of_more_sentences_than_the_cap_is_drafted_whole():
    many = " ".join(f"Punkt {i} ist erledigt!" for i in range(MAX_SENTENCES + 1))
    model = FakeChatModel(default="Done.")
    UserAgent(model, COMPLETION, drafts=3, sentences=True).draft_many(
        ChatMessage(sender="lena", content=many, lang="deu"), ["eng"]
    )
    assert len(model.prompts) == 3 and all(p.endswith(f"{many}\nEnglish:") for p in model.prompts)
    at_cap = " ".join(f"Punkt {i} ist erledigt!" for i in range(MAX_SENTENCES))
    model = FakeChatModel(default="Done.")
    UserAgent(model, COMPLETION, drafts=3, sentences=True).draft_many(
        ChatMessage(sender="lena", content=at_cap, lang="deu"), ["eng"]
    )
    assert len(model.prompts) == 3 * MAX_SENTENCES  # one per sentence and draft
