"""User text never becomes control tokens: every special-token string of a tokenizer (its named
special tokens and the added tokens marked special) that occurs inside untrusted text is broken with a zero-width space (U+200B) after its first character.

Why by construction: a tokenizer turns the *text* ``<|im_start|>`` into the control token wherever it
occurs, so a chat template's rendering cannot tell the template's own turn markers from the same
characters typed by a user. Escaping the message contents **before** rendering leaves only the
template's markers (and the BOS prefix the model adds) as control tokens. The escaped text looks the
same to a reader; the model sees ordinary characters.

Every model kind goes through :func:`escape_control_tokens`: chat prompts (each message's content,
before the chat template), completion prompts (the whole text, before the BOS prefix), and seq2seq
inputs (before a Marian ``>>tgt<<`` prefix or NLLB's language codes are added). Token strings of one
character cannot be broken and are left alone (no tokenizer here has any).
"""

from __future__ import annotations

from functools import lru_cache

__all__ = ["ZWSP", "control_strings", "escape_control_tokens"]

ZWSP = "\u200b"


def control_strings(tokenizer: object) -> tuple[str, ...]:
    """The strings ``tokenizer`` turns into **special** tokens (longest first; length >= 2): its named
    special tokens and every added token marked special. Added tokens *not* marked special (Gemma's
    runs of newlines, ``<b>``/``<td>`` HTML pieces) are ordinary text and stay as they are. Both are read
    by attribute, so any object serves (one with neither ``all_special_tokens`` nor
    ``added_tokens_decoder`` has none)."""
    cached = getattr(tokenizer, "_aya_control_strings", None)
    if cached is not None:
        return cached
    found = set(getattr(tokenizer, "all_special_tokens", []) or [])
    decoder = getattr(tokenizer, "added_tokens_decoder", None) or {}
    found |= {t.content for t in decoder.values() if getattr(t, "special", False)}
    out = tuple(sorted((s for s in found if isinstance(s, str) and len(s.strip()) >= 2), key=lambda s: (-len(s), s)))
    try:
        setattr(tokenizer, "_aya_control_strings", out)  # noqa: B010 - any object: no attribute to name statically
    except AttributeError:  # a tokenizer that refuses new attributes: recompute each time
        pass
    return out


def escape_control_tokens(text: str, tokenizer_or_strings: object) -> str:
    """``text`` with every control-token string broken by U+200B after its first character; the strings are
    ``tokenizer_or_strings`` itself when it is a tuple or list of them, else :func:`control_strings` of it.

    Repeats until no control string is left (breaking one cannot form another, but the check is
    cheap and makes the guarantee independent of the vocabulary). Text without any is returned as is,
    so ordinary messages render byte-identically."""
    strings = (
        tuple(tokenizer_or_strings)
        if isinstance(tokenizer_or_strings, (tuple, list))
        else control_strings(tokenizer_or_strings)
    )
    return _escape(text, strings)


def _escape(text: str, strings: tuple[str, ...]) -> str:
    if _first_characters(strings).isdisjoint(text):
        return text  # no string can occur: the usual case, decided without a search per string
    for _ in range(8):
        hits = [s for s in strings if s in text]
        if not hits:
            return text
        for s in hits:
            text = text.replace(s, s[0] + ZWSP + s[1:])
    return text


@lru_cache(maxsize=16)
def _first_characters(strings: tuple[str, ...]) -> frozenset[str]:
    """The characters the control strings ``strings`` begin with."""
    return frozenset(s[0] for s in strings if s)
