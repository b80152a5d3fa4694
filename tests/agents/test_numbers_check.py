"""The guard's ``numbers`` check: a number the output states and the source does not is withheld."""

from __future__ import annotations

from aya_lab.agents.guard import ALL_CHECKS, TranslationGuard
from aya_lab.agents.numbers import digit_groups, source_numbers, unsupported_numbers, unsupported_weekdays, weekdays


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
