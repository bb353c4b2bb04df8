"""The upload table's jurisdiction column suggests ISO 3166 codes: names become codes, aliases are explained."""

from __future__ import annotations

from ui.frames import JURISDICTION_HELP, jurisdiction_hints, with_iso_codes


def test_the_help_suggests_iso_codes_not_their_aliases() -> None:
    assert "GB" in JURISDICTION_HELP and "UK" not in JURISDICTION_HELP.split()
    assert "EU" in JURISDICTION_HELP and "US-NY" in JURISDICTION_HELP


def test_names_become_codes_and_an_alias_is_kept_with_its_iso_code_said() -> None:
    typed = {
        "a.pdf": {"jurisdiction": "Germany", "title": "A"},
        "b.pdf": {"jurisdiction": "UK"},
        "c.txt": {"jurisdiction": "Quebec"},
        "d.txt": {"jurisdiction": "GB"},
        "e.txt": {"jurisdiction": "INT"},
        "f.txt": {},
    }
    assert with_iso_codes(typed) == {
        "a.pdf": {"jurisdiction": "DE", "title": "A"},
        "b.pdf": {"jurisdiction": "UK"},
        "c.txt": {"jurisdiction": "CA-QC"},
        "d.txt": {"jurisdiction": "GB"},
        "e.txt": {"jurisdiction": "INT"},
        "f.txt": {},
    }
    assert jurisdiction_hints(typed) == [
        "a.pdf: Germany is filed under its code DE",
        "b.pdf: UK is kept as typed; ISO 3166 writes GB, and either code answers for United Kingdom",
        "c.txt: Quebec is filed under its code CA-QC",
    ]
