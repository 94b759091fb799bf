"""Text as a reader sees it: the one module both ``gen verify`` and the panel reader use."""

from __future__ import annotations

from hopvista.reading import (
    Lookalikes,
    as_read,
    confusable_skeleton,
    format_character,
    invisible_character,
    latin_reading,
    look_alike,
    spoken_as_digits,
    visible_text,
)

PERSIAN_WITH_JOINER = "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645"  # "I want", ZWNJ needed


def test_numbers_are_read_without_their_grouping_or_invisible_characters() -> None:
    assert as_read("1\u00a0999 and 1,999 and 1\u200b999") == "1999 and 1999 and 1999"
    assert as_read("\uff2e\uff4f\uff54") == "Not"
    assert spoken_as_digits("two farms") == "2 farms"


def test_wording_may_hold_no_format_character_a_name_may_hold_a_needed_joiner() -> None:
    assert format_character("fa\u200blse") == "U+200B (ZERO WIDTH SPACE)"
    assert format_character(PERSIAN_WITH_JOINER) is not None
    assert invisible_character(PERSIAN_WITH_JOINER) is None
    assert invisible_character("Ac\u200dme") == "\u200d"


def test_a_word_reads_in_latin_letters_two_names_look_alike_by_their_skeleton() -> None:
    assert latin_reading("f\u0430lse") == "false"
    assert look_alike("f\u0430lse") is not None and look_alike("false") is None
    assert confusable_skeleton("\u0410cme") == confusable_skeleton("Acme")
    assert visible_text(" A\u2800 b ") == "A b"
    names: Lookalikes[int] = Lookalikes()
    assert names.add("ACME", 1) is None
    assert names.add("Acme", 2) == ("ACME", 1)
