"""The guard's ``numbers`` check: a number the output states and the source does not is withheld; one the output
leaves out is a doubt (the draft is flagged)."""

from __future__ import annotations

from aya_lab.agents.guard import ALL_CHECKS, TranslationGuard
from aya_lab.agents.numbers import (
    digit_groups,
    dropped_facts,
    source_numbers,
    unsupported_numbers,
    unsupported_weekdays,
    weekdays,
    written_numbers,
)


def test_digit_groups_read_every_script_and_ignore_separators():
    assert digit_groups("at 10:00, 1,000 EUR") == ["10", "00", "1", "000"]
    assert digit_groups("बैठक १२ बजे") == ["12"]  # Devanagari digits by value
    assert digit_groups("٣ أيام") == ["3"]
    assert digit_groups("no numbers") == []


def test_a_number_the_source_lacks_is_unsupported_and_separators_do_not_matter():
    invented = "The train arrived at the station at 10:00 am."
    assert unsupported_numbers("Bajeti imehamishwa hadi Ijumaa.", invented) == ["10"]
    assert unsupported_numbers("The per diem is 45 EUR.", "Le per diem est de 600 EUR.") == ["600"]
    assert unsupported_numbers("It costs 1,000.50 EUR", "Es kostet 1.000,50 EUR") == []
    assert unsupported_numbers("It costs 1,000 EUR", "Es kostet 1000 EUR") == []  # digits run together
    assert unsupported_numbers("à 15 h", "at 15:00") == []  # zero minutes are no fact
    assert unsupported_numbers("Meeting at 3 on the 12th", "Mkutano tarehe 12") == []  # a dropped number is not flagged


def test_the_guard_withholds_a_changed_number_and_passes_the_same_numbers():
    guard = TranslationGuard(("numbers",))
    verdict = guard.check("The meeting is at 10:30 on Friday.", "La réunion est à 11h30 vendredi.", "eng", "fra")
    assert not verdict.ok and verdict.reasons == ("numbers: the output states 11, which the source does not",)
    assert guard.check("The meeting is at 10:30 on Friday.", "La réunion est à 10h30 vendredi.", "eng", "fra").ok
    text, note = guard.deliverable("Budget moved to Friday.", "Le train est arrivé à 10:00.", "eng", "fra")
    assert text == "[not translated] Budget moved to Friday." and "numbers: the output states 10," in note


def test_numbers_runs_before_the_encoder_for_every_real_model():
    assert "numbers" in ALL_CHECKS and ALL_CHECKS.index("numbers") < ALL_CHECKS.index("faithful")


def test_numbers_written_in_words_support_their_digits():
    assert unsupported_numbers("The shipment is delayed by two days.", "Die Lieferung ist 2 Tage verspätet.") == []
    assert unsupported_numbers("Leave is twenty-five days.", "Der Urlaub beträgt 25 Tage.") == []
    assert unsupported_numbers("Son veinte y cinco días.", "It is 25 days.") == []
    assert unsupported_numbers("The meeting is at ten.", "La réunion est à 11 h.") == [
        "11"
    ]  # a changed hour still fails
    assert unsupported_numbers("Two boxes arrived.", "7 Kisten sind angekommen.") == ["7"]


def test_chinese_numerals_half_hours_and_the_24_hour_clock():
    assert source_numbers("我三月三日到十四日休假。")[:3] == [3, 3, 14]
    assert unsupported_numbers("应用将在晚上十点到十一点之间无法使用。", "from 22:00 to 23:00") == []
    assert unsupported_numbers("我十点半之前有一个客户电话", "a client call until 10:30") == []
    assert unsupported_numbers("The call is at 2 pm.", "L'appel est à 14 h.") == []
    assert unsupported_numbers("The call is at 2 pm.", "L'appel est à 16 h.") == ["16"]


def test_a_swahili_hour_supports_the_clock_hour_it_names():
    # Swahili counts hours from 6 a.m.: saa nne (the fourth hour) is 10 a.m., saa tisa 3 p.m.
    assert unsupported_numbers("Mkutano umehamishwa hadi Ijumaa saa nne asubuhi.", "Friday at 10 am") == []
    assert unsupported_numbers("Ofisi itafungwa saa tisa alasiri.", "The office closes at 15:00.") == []
    assert unsupported_numbers("Ofisi itafungwa saa tisa alasiri.", "The office closes at 5 pm.") == ["5"]


def test_a_weekday_the_source_does_not_state_is_unsupported_in_any_language():
    assert unsupported_weekdays("El nuevo técnico empieza el lunes.", "Der neue Chef beginnt am Dienstag.") == [
        "Tuesday"
    ]
    assert unsupported_weekdays("El nuevo técnico empieza el lunes.", "The new technician starts on Monday.") == []
    assert unsupported_weekdays("Mkutano ni Ijumaa.", "La réunion est vendredi.") == []
    assert weekdays("Das Treffen ist Freitagnachmittag.") == {4} and weekdays("die Montage der Möbel") == set()
    assert weekdays("la segunda planta") == set()  # an ordinal, not Portuguese's segunda-feira
    verdict = TranslationGuard(("numbers",)).check("The meeting is on Monday.", "La réunion est mardi.", "eng", "fra")
    assert verdict.reasons == ("numbers: the output states Tuesday, which the source does not",)


def test_chinese_weekdays_support_their_translation():
    assert weekdays("每周团队会议改到了周四上午十点。") == {3} and weekdays("星期日休息") == {6}
    assert unsupported_weekdays("新同事周一入职。", "The new colleague starts on Monday.") == []
    assert unsupported_weekdays("新同事周一入职。", "The new colleague starts on Tuesday.") == ["Tuesday"]


def test_written_numbers_join_thousands_and_split_times():
    assert written_numbers("1,000 or 1.000 or 1 000 EUR at 10:30, 3,5 km") == [
        "1000",
        "1000",
        "1000",
        "10",
        "30",
        "3",
        "5",
    ]
    assert written_numbers("ref 12,5000 and १२") == ["12", "5000", "12"]


def test_a_number_or_weekday_the_output_leaves_out_is_dropped():
    leave = "Je pose mes congés du 22 décembre au 2 janvier."
    assert dropped_facts(leave, "I am going to the hospital on 22 December.") == ["2"]  # "2" is not carried by "22"
    assert dropped_facts(leave, "I take leave from 22 December to 2 January.") == []
    assert dropped_facts("Der Zug fährt am Montag um 10 Uhr.", "The train leaves on Tuesday at 10.") == ["Monday"]
    assert dropped_facts("Server down from 6 to 9 am on Saturday.", "Le serveur est arrêté à 6 h.") == ["9", "Saturday"]


def test_a_number_written_another_way_is_carried():
    assert dropped_facts("réunion à 14 h", "meeting at 2 pm") == []  # 24-hour clock to 12-hour
    assert dropped_facts("meeting at 2 pm", "Treffen um 14:00 Uhr") == []  # and back
    assert dropped_facts("Le 10 avril à 9h30", "On April 10 at half past nine") == []  # a half hour in words
    assert (
        dropped_facts(
            "The shipment is two days late, 1,000 boxes.", "Die Lieferung hat 2 Tage Verspätung, 1000 Kisten."
        )
        == []
    )
    assert dropped_facts("Room 4B at 15:00", "salle 4B à 15 h") == []  # zero minutes carry no fact
    assert dropped_facts("Zwei Kisten fehlen.", "Two boxes are missing.") == []  # only numbers in digits are checked


def test_the_guard_flags_a_draft_that_leaves_out_a_number():
    guard = TranslationGuard(("numbers",))
    verdict = guard.check("Ich bin vom 5. bis 19. Juli im Urlaub.", "I am on holiday on 19 July.", "deu", "eng")
    assert verdict.ok and verdict.flagged and verdict.doubts == ("numbers: the output leaves out 5",)
    text, note = guard.deliverable(
        "Ich bin vom 5. bis 19. Juli im Urlaub.", "I am on holiday on 19 July.", "deu", "eng"
    )
    assert text.startswith("[unverified] I am on holiday on 19 July.") and text.endswith(
        "Ich bin vom 5. bis 19. Juli im Urlaub."
    )
    assert "unverified (numbers: the output leaves out 5)" in note
    both = guard.check("Am Montag um 10 Uhr.", "On Tuesday at 11.", "deu", "eng")  # changed: withheld, not flagged
    assert not both.ok and not both.flagged
    assert not guard.check("Am Montag um 10 Uhr.", "On Monday at 10.", "deu", "eng").flagged
