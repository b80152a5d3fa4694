"""Which text Aya routes: one decision for the room and both routing evaluators (agents.route_input)."""

import pytest

from aya_lab.agents.route_input import COMMAND_NOTE, RoutedInput, RouteOn, decide_input

GERMAN = "Wie lautet unsere Reiserichtlinie?"
ENGLISH = "What is our travel policy for flights?"
NOT_ENGLISH = "[English] Wie lautet unsere Reiserichtlinie, bitte?"  # a translation that stayed German


def test_the_vocabulary_covers_the_three_it_replaces():
    assert [r.value for r in RouteOn] == ["english", "original", "auto", "gold"]
    assert RouteOn("auto") is RouteOn.AUTO and f"{RouteOn.GOLD}" == "gold"  # a str: YAML and CLI values
    assert [r for r in RouteOn if r.translates] == [RouteOn.ENGLISH, RouteOn.AUTO]


def test_english_routes_the_translation_and_the_fallback_also_reads_the_original():
    routed = decide_input(GERMAN, "deu", NOT_ENGLISH, RouteOn.ENGLISH)
    assert routed == RoutedInput(NOT_ENGLISH, original=GERMAN)  # whatever the translation says
    assert routed.translated and routed.kb_query == NOT_ENGLISH and routed.note is None


def test_original_routes_the_request_as_written_and_needs_no_translation():
    routed = decide_input(GERMAN, "deu", None, "original")
    assert routed == RoutedInput(GERMAN, None, "routed on the original request (route_on: original)")
    assert not routed.translated


def test_auto_routes_an_english_translation():
    assert decide_input(GERMAN, "deu", ENGLISH, RouteOn.AUTO) == RoutedInput(ENGLISH, original=GERMAN)


def test_auto_routes_the_original_where_the_translation_is_not_english():
    routed = decide_input(GERMAN, "deu", NOT_ENGLISH)  # auto is the default, as in the room
    assert routed.text == GERMAN and routed.original is None
    assert routed.note == f"routed on the original request: its translation {NOT_ENGLISH[:40]!r} is not English"


def test_gold_routes_the_reference_english_and_the_fallback_reads_it_alone():
    routed = decide_input(GERMAN, "deu", ENGLISH, RouteOn.GOLD)
    assert routed == RoutedInput(ENGLISH) and not routed.translated  # a gloss is not a model translation


@pytest.mark.parametrize("route_on", list(RouteOn))
def test_an_english_request_is_routed_as_written_in_every_mode(route_on):
    assert decide_input(ENGLISH, "eng", None, route_on) == RoutedInput(ENGLISH)
    assert decide_input(ENGLISH, "eng", "something else", route_on) == RoutedInput(ENGLISH)


@pytest.mark.parametrize("route_on", [RouteOn.ENGLISH, RouteOn.AUTO])
def test_a_translation_identical_to_the_request_leaves_no_original_to_fall_back_on(route_on):
    same = "Bonjour Aya"  # unchanged by the translator; lingua need not call it English
    routed = decide_input(same, "fra", same, route_on)
    assert routed.text == same and routed.original is None and not routed.translated


@pytest.mark.parametrize("empty", ["", "   ", "\n"])
def test_an_empty_translation_is_routed_by_english_and_refused_by_auto(empty):
    # english routes the translation as given (the fallback keeps the original); auto's language check refuses it
    assert decide_input(GERMAN, "deu", empty, RouteOn.ENGLISH) == RoutedInput(empty, original=GERMAN)
    auto = decide_input(GERMAN, "deu", empty, RouteOn.AUTO)
    assert auto.text == GERMAN and auto.original is None and "is not English" in auto.note


@pytest.mark.parametrize("route_on", list(RouteOn))
@pytest.mark.parametrize(("command", "lang"), [("/remember Das Treffen ist am Freitag", "deu"), ("forget 7", "eng")])
def test_a_command_is_read_as_typed_in_every_mode(route_on, command, lang):
    routed = decide_input(command, lang, "[translated]", route_on)
    assert routed == RoutedInput(command, None, COMMAND_NOTE)


def test_a_needed_translation_that_is_missing_and_an_unknown_mode_are_refused():
    with pytest.raises(ValueError, match="route_on 'auto' needs the English text of this deu request"):
        decide_input(GERMAN, "deu", None)
    with pytest.raises(ValueError, match="'room' is not a valid RouteOn"):
        decide_input(GERMAN, "deu", ENGLISH, "room")
