"""A refusal on a page names the field by its label on the page's form, in one place
(api/web/respond.py): the API's field name stays for `aria-invalid`, the rule stays, and a
field no label is known for is left as the page's own code words it."""

from __future__ import annotations

from api.web.respond import refusal
from domain.errors import InvalidCommand


def test_a_known_field_is_said_by_its_label_and_keeps_its_rule() -> None:
    status, said = refusal(InvalidCommand("to_version is a version number, e.g. 12",
                                          rule="3.6", field="to_version"))
    assert status == 422 and said["rule"] == "3.6" and said["field"] == "to_version"
    assert said["label"] == "or version"
    assert said["message"] == "“or version” is a version number, e.g. 12"


def test_a_commands_nested_field_is_said_by_its_last_known_part() -> None:
    _, said = refusal(InvalidCommand("purchase_rg.mode: Input should be 'entry'",
                                     field="purchase_rg.mode"))
    assert (said["label"], said["message"]) == ("Buy it as", "Buy it as: Input should be 'entry'")


def test_a_field_with_no_known_label_is_left_as_it_is() -> None:
    _, said = refusal(InvalidCommand("some_field: choose one of cpp, fpp", field="some_field"))
    assert "label" not in said and said["message"] == "some_field: choose one of cpp, fpp"


def test_an_item_of_a_list_is_said_by_the_lists_label() -> None:
    _, said = refusal(InvalidCommand("drm[1]: DRM 3.6181-gv is claimed twice", field="drm[1]"))
    assert (said["label"], said["message"]) == (
        "DRM you may claim", "DRM you may claim: DRM 3.6181-gv is claimed twice")
    _, said = refusal(InvalidCommand("roll.drm.0.id: too long", field="roll.drm.0.id"))
    assert said["label"] == "DRM you may claim"
