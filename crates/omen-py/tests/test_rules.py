"""The rule sets' analyses and reference tables from Python, against values computed by hand and
against the ``omen`` command's own answers."""

from __future__ import annotations

import pytest

import omen_dice as omen


def test_every_rule_set_is_listed_with_its_analyses_and_tables():
    sets = {r["name"]: r for r in omen.rule_sets()}
    assert {"ritual", "spelldice", "luck", "hprpg", "t13"} <= set(sets)
    luck = sets["luck"]
    assert any(a["name"] == "calculator" for a in luck["analyses"])
    calculator = next(a for a in luck["analyses"] if a["name"] == "calculator")
    # The inputs' JSON Schema, as the page builds its form from.
    assert calculator["inputs"]["type"] == "object"


def test_an_analysis_answers_tables_with_exact_fractions():
    tables = omen.analyse("luck", "calculator", {"modifier": -2})
    assert tables and all(isinstance(t, omen.Table) for t in tables)
    first = tables[0]
    # Modifier -2 on a d50: bad 1..12 (12/50 = 6/25), neutral 13..42 (30/50 = 3/5), good 43..50
    # (8/50 = 4/25), as `omen luck ranges --modifier -2` writes them.
    chances = [row[-1].split(" ")[0] for row in first.rows]
    assert chances == ["6/25", "3/5", "4/25"]
    assert [row[1] for row in first.rows] == ["1–12", "13–42", "43–50"]
    assert "<caption>" in first._repr_html_() and first.caption in first._repr_markdown_()
    assert first.to_dicts()[0].keys() == set(first.columns)


def test_an_unknown_rule_set_analysis_or_table_names_the_known_ones():
    with pytest.raises(ValueError, match="the rule sets are"):
        omen.analyse("nope", "calculator")
    with pytest.raises(ValueError, match="its analyses are"):
        omen.analyse("luck", "nope")
    with pytest.raises(ValueError, match="its tables are"):
        omen.reference_table("luck", "nope")


def test_inputs_the_analysis_refuses_say_why():
    with pytest.raises(ValueError, match="luck calculator"):
        omen.analyse("luck", "calculator", {"modifier": "lots"})


def test_every_reference_table_renders_and_the_rule_sets_are_the_commands(omen_cli):
    sets = {r["name"]: r for r in omen.rule_sets()}
    for rule_set in sets.values():
        for table in rule_set["tables"]:
            text = omen.reference_table(rule_set["name"], table["name"])
            assert text.strip(), (rule_set["name"], table["name"])
    # The omen binary CI hands over is the one the workspace's tests built, and they register
    # omen-rules' test game ("coin", its test-game feature); omen_dice is built without it.
    assert {r["name"] for r in omen_cli("rules")} - {"coin"} == set(sets)
