"""The generic panel source: panel.csv + texts.jsonl + a partial domain.yaml as a domain."""

from __future__ import annotations

import json
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path

import pytest

from hopvista.cli.main import main
from hopvista.domain import resolve_pack
from hopvista.errors import UserError
from hopvista.generation.instance import needle_occurs
from hopvista.sources import SourceOptions
from hopvista.sources.panel.loader import load_panel
from hopvista.sources.panel.pack import header_nouns, panel_pack
from hopvista.sources.panel.stated import columns_stated
from hopvista.sources.panel.table import read_panel, slug_key
from hopvista.sources.panel.texts import read_texts

EXAMPLE = Path(__file__).parent.parent / "examples" / "air-quality"

CSV = """Club,Season,Points,Goals Scored,Goals Conceded,Attendance
Riverton FC,2019,61,58,40,21450.5
Riverton FC,2020,66,63,35,22010.25
Riverton FC,2021,70,71,30,23100
Harbour Athletic,2019,48,45,52,15020
Harbour Athletic,2020,45,40,55,14800
Harbour Athletic,2021,52,49,47,
Millbrook United,2019,55,50,44,18000
Millbrook United,2020,57,52,41,18250.5
Millbrook United,2021,59,60,39,18900
"""

TEXTS = [
    {"entity": "Riverton FC", "text": "Riverton FC was founded in 1898. The club plays its "
                                      "home games at Millbrook Park, which holds 24,500 "
                                      "spectators. Riverton FC won the Northern Cup in 1954."},
    {"entity": "harbour-athletic", "section": "history",
     "text": "Harbour Athletic hosts the Quayside Youth Tournament every June. The club's "
             "academy has trained 140 professional players."},
    {"entity": "Millbrook United", "period": 2020,
     "text": "Millbrook United opened the Eastgate Training Centre in 2011."},
]


def write_folder(root: Path, csv: str = CSV, texts: list[object] | str | None = None,
                 domain: str | None = None) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "panel.csv").write_text(csv, encoding="utf-8")
    if texts is not None:
        body = texts if isinstance(texts, str) else "".join(
            json.dumps(t) + "\n" for t in texts)
        (root / "texts.jsonl").write_text(body, encoding="utf-8")
    if domain is not None:
        (root / "domain.yaml").write_text(domain, encoding="utf-8")
    return root


def error_of(call: Callable[..., object], *args: object) -> str:
    with pytest.raises(UserError) as caught:
        call(*args)
    message = str(caught.value)
    assert "\n" not in message
    return message


# --- panel.csv -------------------------------------------------------------------------------

def test_parses_entities_periods_columns_and_precision(tmp_path: Path) -> None:
    panel = read_panel(write_folder(tmp_path) / "panel.csv")
    assert panel.entity_label == "Club" and panel.period_label == "Season"
    assert panel.entities == (("riverton-fc", "Riverton FC"),
                              ("harbour-athletic", "Harbour Athletic"),
                              ("millbrook-united", "Millbrook United"))
    assert panel.periods == (2019, 2020, 2021)
    assert [(c.key, c.label, c.precision) for c in panel.columns] == [
        ("points", "Points", 0), ("goals_scored", "Goals Scored", 0),
        ("goals_conceded", "Goals Conceded", 0), ("attendance", "Attendance", 2)]
    assert panel.values["riverton-fc"]["attendance"] == [
        Decimal("21450.5"), Decimal("22010.25"), Decimal("23100")]
    assert panel.values["harbour-athletic"]["attendance"][2] is None  # empty cell = missing


def test_period_column_detected_by_repeating_integers(tmp_path: Path) -> None:
    csv = CSV.replace("Club,Season,", "Club,Vintage Year,")
    assert read_panel(write_folder(tmp_path, csv) / "panel.csv").period_label == "Vintage Year"
    # integers that do not repeat per entity are a numeric column, not periods
    once = "Club,Titles,Points,Goals,Fans\nA,3,61,58,40\nB,5,48,45,52\nC,1,55,50,44\n"
    panel = read_panel(write_folder(tmp_path / "once", once) / "panel.csv")
    assert panel.period_label is None and panel.periods == (0,)
    assert [c.key for c in panel.columns] == ["titles", "points", "goals", "fans"]
    assert panel.values["a"]["titles"] == [Decimal(3)]


def test_period_named_by_the_pack_or_refused(tmp_path: Path) -> None:
    csv = CSV.replace("Club,Season,", "Club,Jornada,")
    path = write_folder(tmp_path, csv) / "panel.csv"
    assert read_panel(path, "jornada").period_label == "Jornada"
    no_period = CSV.replace("Club,Season,", "Club,Rank,").replace(
        "Riverton FC,2020", "Riverton FC2,2020").replace("Riverton FC,2021", "Riverton FC3,2021")
    message = error_of(read_panel, write_folder(tmp_path / "x", no_period) / "panel.csv", False)
    assert "duplicate row" in message and ":6:" in message  # Harbour Athletic twice


def test_keys_are_slugs_and_unique() -> None:
    taken: set[str] = set()
    assert slug_key("PM2.5", taken, "c") == "pm2_5"
    assert slug_key("pm2-5", taken, "c") == "pm2_5_2"
    assert slug_key("NO₂ (µg/m³)", taken, "c") == "no2_g_m3"
    assert slug_key("2nd Leg", taken, "c") == "c_2nd_leg"
    assert slug_key("%", taken, "column_7") == "column_7"


@pytest.mark.parametrize(("csv", "where", "what"), [
    (CSV.replace("Riverton FC,2020,66,63,35,22010.25", "Riverton FC,2020,66,63,35"),
     ":3:", "5 fields, expected 6"),
    (CSV.replace("Harbour Athletic,2020,45,40", "Harbour Athletic,2020,45,forty"),
     ":6:", "'Goals Scored': 'forty' is not a number"),
    (CSV.replace("Millbrook United,2021", "Millbrook United,2020"),
     ":10:", "duplicate row for 'Millbrook United' in Season 2020 (first on line 9)"),
    (CSV.replace("Riverton FC,2021", "Riverton FC,2021b"), ":4:", "is not an integer"),
    (CSV.replace("Harbour Athletic,2019", ",2019"), ":5:", "cell is empty"),
    ("Club,Season,Points,Points\nA,1,2,3\n", ":1:", "'Points' appears twice"),
    ("Club,Season,Points,Goals\nA,2019,2,3\nA,2020,3,4\n", ":1:", "at least 3 are needed"),
    ('Club,Season,Points,Goals,Fans\n"A,2019,2,3,4\n', ":", "malformed CSV"),
])
def test_bad_rows_name_file_and_line(tmp_path: Path, csv: str, where: str, what: str) -> None:
    path = write_folder(tmp_path, csv) / "panel.csv"
    message = error_of(read_panel, path)
    assert message.startswith(f"{path}{where}"), message
    assert what in message, message


def test_unreadable_panel_is_a_user_error(tmp_path: Path) -> None:
    (tmp_path / "panel.csv").write_bytes(b"Club,\xff\n")
    assert "not UTF-8" in error_of(read_panel, tmp_path / "panel.csv")
    assert "panel.csv" in error_of(read_panel, tmp_path / "missing" / "panel.csv")


# --- texts.jsonl -----------------------------------------------------------------------------

def test_texts_map_names_and_ids_with_sections_and_periods(tmp_path: Path) -> None:
    folder = write_folder(tmp_path, texts=TEXTS)
    panel = read_panel(folder / "panel.csv")
    lines = read_texts(folder / "texts.jsonl", panel)
    assert [(t.line, t.entity, t.section, t.period) for t in lines] == [
        (1, "riverton-fc", "text", 2021), (2, "harbour-athletic", "history", 2021),
        (3, "millbrook-united", "text", 2020)]


@pytest.mark.parametrize(("body", "line", "what"), [
    ('{"entity": "Riverton FC", "text": "x"}\n{"entity": "Nowhere", "text": "y"}\n', 2,
     "unknown entity 'Nowhere'"),
    ('{"entity": "Riverton FC", "text": "x"}\n\n{"entity": "Riverton FC", "text": \n', 3,
     "invalid JSON"),
    ('["Riverton FC", "x"]\n', 1, "expected a JSON object"),
    ('{"entity": "Riverton FC", "txt": "x"}\n', 1, "unknown field 'txt'"),
    ('{"entity": "Riverton FC", "text": ""}\n', 1, "field 'text' must be a non-empty string"),
    ('{"entity": "Riverton FC", "text": "x", "period": 1999}\n', 1, "field 'period'"),
    ('{"entity": "Riverton FC", "text": "x", "section": "a b"}\n', 1, "field 'section'"),
])
def test_bad_text_lines_name_file_and_line(tmp_path: Path, body: str, line: int,
                                           what: str) -> None:
    folder = write_folder(tmp_path, texts=body)
    panel = read_panel(folder / "panel.csv")
    message = error_of(read_texts, folder / "texts.jsonl", panel)
    assert message.startswith(f"{folder / 'texts.jsonl'}:{line}: "), message
    assert what in message, message


def test_columns_stated_match_written_values() -> None:
    values = {"points": [Decimal(61), Decimal(66)], "attendance": [Decimal("21450.5")],
              "goals": [Decimal(3)]}
    precision = {"points": 0, "attendance": 1, "goals": 0}
    assert columns_stated("They scored 66 points and drew 21,450.5 fans.", values,
                          precision) == {"points", "attendance"}
    assert columns_stated("Crowds averaged 21,451 in 1998 with 3 goals.", values,
                          precision) == {"attendance"}  # rounded; years and 1 digit skipped
    assert columns_stated("Founded in 1898.", values, precision) == frozenset()


# --- the adapted pack and the world ----------------------------------------------------------

def test_defaults_without_domain_yaml(tmp_path: Path) -> None:
    folder = write_folder(tmp_path / "clubs", texts=TEXTS)
    pack = panel_pack(resolve_pack("panel"), SourceOptions(data=folder))
    spec = pack.spec
    assert pack.name == "panel" and spec.title == "Panel data: clubs"
    assert (spec.entity.singular, spec.entity.plural, spec.entity.label) == (
        "club", "clubs", "Club")  # the nouns read off the entity column's header
    assert spec.period is not None and spec.period.name == "Season"
    assert spec.documents is True
    assert [(c.key, c.label, c.precision, c.unit) for c in spec.columns] == [
        ("points", "Points", 0, ""), ("goals_scored", "Goals Scored", 0, ""),
        ("goals_conceded", "Goals Conceded", 0, ""), ("attendance", "Attendance", 2, "")]
    assert spec.instance.periods == 3 and spec.instance.table_columns == 3
    assert "FC+CT" in pack.types and "TR" in pack.types

    world = load_panel(pack, 0, SourceOptions(data=folder))
    assert world.periods == [2019, 2020, 2021] and world.period_axis
    assert [e.name for e in world.entities] == ["Riverton FC", "Harbour Athletic",
                                                "Millbrook United"]
    assert world.value("riverton-fc", "points", 2020) == Decimal(66)
    riverton = world.chunks["riverton-fc"][0]
    assert riverton.id == "riverton-fc-text-1"
    claims = {f.claim for f in riverton.facts}
    # "The club plays ...": the header "Club" makes "the club" the entity
    assert claims == {"was founded in 1898", "won the Northern Cup in 1954",
                      "plays its home games at Millbrook Park, which holds 24,500 spectators"}
    for fact in (f for chunks in world.chunks.values() for c in chunks for f in c.facts):
        assert needle_occurs(fact.needle, fact.sentence) and fact.sentence in \
            next(c.text for c in world.chunks[fact.entity] if c.id == fact.chunk)
        assert "Riverton" not in fact.claim and "club" not in fact.claim.lower()
    assert {f.needle for f in world.chunks["harbour-athletic"][0].facts} >= {
        "Quayside Youth Tournament"}


def test_no_texts_no_documents_and_no_period_axis(tmp_path: Path) -> None:
    once = ("Club,Titles,Points,Goals,Fans\nA,3,61,58,40\nB,5,48,45,52\nC,1,55,50,44\n"
            "D,2,50,40,30\n")
    folder = write_folder(tmp_path, once)
    pack = panel_pack(resolve_pack("panel"), SourceOptions(data=folder))
    assert pack.spec.period is None and pack.spec.documents is False
    assert set(pack.types) == {"CT", "RK", "CT+RK", "AR+RK"}  # the pairs rank among entities
    assert "in {{ period }}" not in " ".join(pack.words.forms["CT"])
    world = load_panel(pack, 0, SourceOptions(data=folder))
    assert world.periods == [0] and not world.period_axis and world.chunks == {}


def test_partial_domain_yaml_is_merged(tmp_path: Path) -> None:
    domain = """
name: clubs
entity: {singular: club, plural: clubs, nouns: [club, team]}
period: {name: Season, format: "{}/{}"}
columns:
  - {label: attendance, key: crowd, unit: fans, precision: 0}
  - {key: goals_conceded, chartable: false}
"""
    folder = write_folder(tmp_path, texts=TEXTS, domain=domain.replace('"{}/{}"', '"S{}"'))
    pack = panel_pack(resolve_pack("panel"), SourceOptions(data=folder))
    assert pack.name == "clubs" and pack.spec.entity.noun_list() == ["club", "team"]
    assert pack.spec.entity.label == "Club"  # from the header, not overridden
    assert pack.spec.period is not None and pack.show_period(2020) == "S2020"
    columns = {c.key: c for c in pack.spec.columns}
    assert columns["crowd"].label == "Attendance" and columns["crowd"].precision == 0
    assert columns["goals_conceded"].chartable is False
    assert pack.spec.question == resolve_pack("panel").spec.question  # the rest: defaults
    world = load_panel(pack, 0, SourceOptions(data=folder))
    claims = {f.claim for f in world.chunks["riverton-fc"][0].facts}
    assert "plays its home games at Millbrook Park, which holds 24,500 spectators" in claims
    assert world.columns["crowd"].precision == 0


@pytest.mark.parametrize(("domain", "line", "what"), [
    ("titel: x\n", 1, "field 'titel': unknown field"),
    ("columns:\n  - {label: Crowd, unit: fans}\n", 2, "no column 'Crowd'"),
    ("columns:\n  - {label: Points, colour: red}\n", 2, "field 'columns.0.colour'"),
    ("title: x\nperiod: {name: Season, format: K}\n", 2, "field 'period.format'"),
    ("documents: true\n", 1, "no texts.jsonl"),
    ("instance: {table_columns: 4}\n", 1, "need 5 columns"),
    ("forms:\n  CT: ['The {{ nun }} is {{ entity }}.']\n", 2, "'nun' is undefined"),
])
def test_bad_domain_yaml_names_file_line_and_field(tmp_path: Path, domain: str, line: int,
                                                   what: str) -> None:
    folder = write_folder(tmp_path, domain=domain)
    message = error_of(panel_pack, resolve_pack("panel"), SourceOptions(data=folder))
    assert message.startswith(f"{folder / 'domain.yaml'}:{line}: "), message
    assert what in message, message


def test_folder_problems(tmp_path: Path) -> None:
    pack = resolve_pack("panel")
    assert "needs --data" in error_of(panel_pack, pack, SourceOptions())
    assert "no panel.csv" in error_of(panel_pack, pack, SourceOptions(data=tmp_path))
    few = "Club,Season,A,B,C\nX,1,1,2,3\nX,2,1,2,3\nY,1,1,2,3\nY,2,2,3,4\n"
    assert "2 entities" in error_of(panel_pack, pack,
                                    SourceOptions(data=write_folder(tmp_path / "f", few)))
    folder = write_folder(tmp_path / "y", texts=TEXTS)
    adapted = panel_pack(pack, SourceOptions(data=folder))
    message = error_of(load_panel, adapted, 0, SourceOptions(data=folder, years=(2030, 2031)))
    assert "--years 2030-2031" in message
    world = load_panel(adapted, 0, SourceOptions(data=folder, years=(2020, 2021)))
    assert world.periods == [2020, 2021]
    assert world.values["riverton-fc"]["points"] == [Decimal(66), Decimal(70)]


def test_example_is_a_complete_pack_and_a_data_folder() -> None:
    own = resolve_pack(str(EXAMPLE))
    assert own.spec.source == "panel" and own.name == "air-quality"
    via_own = panel_pack(own, SourceOptions())
    via_panel = panel_pack(resolve_pack("panel"), SourceOptions(data=EXAMPLE))
    assert via_own.spec == via_panel.spec
    world = load_panel(via_own, 0, SourceOptions())
    assert len(world.entities) == 12 and world.periods == list(range(2018, 2024))
    assert {c.key for c in world.columns.values()} == {
        "pm25", "pm10", "no2", "o3", "bad_days", "temp", "rain", "green"}
    assert all(any(c.facts for c in world.chunks[e.id]) for e in world.entities)


# --- end to end ------------------------------------------------------------------------------

def gen(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    """``gen ARGS`` in this process: its exit code and what it printed."""
    capsys.readouterr()
    code = main(list(args))
    said = capsys.readouterr()
    return code, said.out + said.err


@pytest.mark.slow
def test_example_and_bare_panel_folder_build_and_verify(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "air"
    built, said = gen(capsys, "build", str(EXAMPLE), "--hops", "1-3", "-n", "16", "--seed", "3",
                "--out", str(out))
    assert built == 0, said
    checked, said = gen(capsys, "verify", str(out))
    assert checked == 0, said
    items = [json.loads(line) for line in (out / "items.jsonl").read_text().splitlines()]
    text = " ".join(s["text"] for item in items for s in item["statements"])
    assert "compan" not in text.lower() and "cit" in text.lower()

    bare = tmp_path / "bare"
    write_folder(bare, (EXAMPLE / "panel.csv").read_text(encoding="utf-8"))
    out2 = tmp_path / "bare-out"
    built, said = gen(capsys, "build", "panel", "--data", str(bare), "--hops", "1,2", "-n", "8",
                "--no-images", "--out", str(out2))
    assert built == 0, said
    checked, said = gen(capsys, "verify", str(out2))
    assert checked == 0, said
    items = [json.loads(line) for line in (out2 / "items.jsonl").read_text().splitlines()]
    assert all("FC" not in s["type"] for item in items for s in item["statements"])


def test_panel_without_period_column_builds_and_verifies(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = (EXAMPLE / "panel.csv").read_text(encoding="utf-8").splitlines()
    header = rows[0].split(",")
    kept = [",".join([header[0], *header[2:]])] + [
        ",".join([r.split(",")[0], *r.split(",")[2:]]) for r in rows[1:]
        if r.split(",")[1] == "2023"]
    folder = write_folder(tmp_path / "once", "\n".join(kept) + "\n")
    (folder / "texts.jsonl").write_text((EXAMPLE / "texts.jsonl").read_text(encoding="utf-8"),
                                        encoding="utf-8")
    out = tmp_path / "once-out"
    built, said = gen(capsys, "build", "panel", "--data", str(folder), "--hops", "1,2", "-n", "8",
                "--no-images", "--out", str(out))
    assert built == 0, said
    checked, said = gen(capsys, "verify", str(out))
    assert checked == 0, said
    items = [json.loads(line) for line in (out / "items.jsonl").read_text().splitlines()]
    types = {s["type"] for item in items for s in item["statements"]}
    assert types <= {"FC", "CT", "RK", "FC+CT", "FC+RK", "CT+RK", "AR+RK"}
    assert "2023" not in " ".join(s["text"] for item in items for s in item["statements"])


def test_numbers_as_people_write_them(tmp_path: Path) -> None:
    csv = ('Club,Season,Crowd,Wage Bill,Win Rate,Points\n'
           'A,2019,"24,481",$40.5,55.5%,61\nA,2020,"1,024",$41.25,60%,66\n'
           'B,2019,900,$12,40.0%,48\nB,2020,"12,000",$13.5,45%,45\n'
           'C,2019,3000,$7,30%,50\nC,2020,3100,$8,35%,52\n')
    panel = read_panel(write_folder(tmp_path, csv) / "panel.csv")
    assert panel.values["a"]["crowd"] == [Decimal(24481), Decimal(1024)]
    assert panel.values["a"]["wage_bill"] == [Decimal("40.5"), Decimal("41.25")]
    assert panel.values["b"]["win_rate"] == [Decimal("40.0"), Decimal(45)]
    assert [(c.key, c.precision, c.unit) for c in panel.columns] == [
        ("crowd", 0, ""), ("wage_bill", 2, "$"), ("win_rate", 1, "%"), ("points", 0, "")]
    pack = panel_pack(resolve_pack("panel"), SourceOptions(data=tmp_path))
    assert {c.key: c.unit for c in pack.spec.columns}["win_rate"] == "%"
    bad = csv.replace("$40.5", "$40.5%")
    message = error_of(read_panel, write_folder(tmp_path / "bad", bad) / "panel.csv")
    assert ":2:" in message and "'$40.5%' is not a number" in message


@pytest.mark.parametrize(("header", "nouns"), [
    ("Club", ("club", "clubs")), ("Hospital", ("hospital", "hospitals")),
    ("City", ("city", "cities")), ("Alloy", ("alloy", "alloys")),
    ("Club Name", ("club", "clubs")), ("Country", ("country", "countries")),
    ("Name", None), ("ID", None), ("Clubs", None), ("Port of call", None), ("Café", None),
])
def test_entity_nouns_from_the_header(header: str, nouns: tuple[str, str] | None) -> None:
    found = header_nouns(header)
    assert (found and (found["singular"], found["plural"])) == (nouns or {})


def test_a_semicolon_separated_panel_says_so(tmp_path: Path) -> None:
    folder = write_folder(tmp_path, CSV.replace(",", ";"))
    message = error_of(read_panel, folder / "panel.csv")
    assert ":1:" in message and "semicolons" in message and "comma-separated" in message
