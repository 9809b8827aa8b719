"""What every web page shares: its templates and security headers, a refusal in the JSON
API's words (api/errors.py), the same-site check of a posted form, and the campaign a
page's address names."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.parse import urlparse
from uuid import UUID

from fastapi import Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates

from api.errors import error_body, status_of
from api.report import mode_words
from api.web.login import LoginNeeded
from api.web.rulings_view import CORRECTIONS
from api.web.view import signed, subject_label
from domain.campaign import campaign_id
from domain.errors import Forbidden, RefitError
from domain.rules.calendar import step_named
from infra.modules import module_name

HERE = Path(__file__).parent
# A field the JSON API names, as the pages' forms label it (an error names the label).
LABELS = {"as_of": "As of", "version": "Or at version", "from": "From", "to": "To",
          "to_version": "or version", "to_step": "Return to",
          "reason": "Reason", "token": "Token", "dice": "Your dice", "unit": "Unit",
          "subject": "Unit", "drm": "DRM you may claim", "rg": "RG", "kg": "KG",
          "mode": "Buy it as",
          "option": "Buy it as (chart note)", "side": "Side", "chit": "Initiative chit",
          "csrf": "this page's form", "action": "this page's form", "once": "this page's form",
          # the ruling form's (api/web/templates/ruling_form.html)
          "verdict": "Verdict", "final": "Final roll", "result": "Result",
          "drm_value": "The ruling's DRM", "drm_reason": "Why that DRM",
          "disputed_by": "Disputed by",
          # the CG Scenario's forms on the guide (a field two forms share, by its command)
          "cvp": "CVP it is worth", "purchase": "RG line #", "report": "Report",
          "record_casualty.unit": "Unit lost",
          "location": "Location", "change_control.kind": "Kind", "lvp": "Its LVP",
          "map_group": "Its Map Group", "infantry": "Controlled by Infantry",
          "area": "Setup/Entry Area",
          # the Retained units' form (api/web/templates/retained.html)
          "listed": "this page's form", "more": "this page's form", "rows": "this page's form",
          "kind": "Kind",
          # the Fortification form's (3.619, 9.619)
          "count": "How many", "hex": "Hex",
          "purchase_fortification.reason": "Fortification (FPP each)",
          # KGP's (api/web/templates/kgp.html) and the director's turn form (CG4, CG23)
          "hold_units.units": "Units", "entry_area": "Entry Area", "held": "In its box",
          "designate_objective.hex": "Objective Hex", "change_pf.reason": "What changed",
          "player_turn": "Player Turn", "end_turn.turn": "Game Turn",
          "change_pf.count": "How many (squads; or PF used)",
          "circled": "The number circled in its box",
          # the director's 3.607 withdrawal (api/web/templates/withdrawal.html)
          "withdraw_units.rule": "Under the rule",
          "withdraw_units.units": "the unit lines (each with How many)",
          # the director's adjustments (api/web/templates/adjust.html)
          "change": "Change", "amount": "Amount", "rating": "Rating", "value": "It becomes",
          "cause": "Cause", "rule": "Rule (if one)", "scenario_type": "Scenario type",
          "weather": "Weather", "ec": "EC", "wind": "Wind",
          # the admin's new campaign (api/web/templates/new_campaign.html)
          "cg": "Module and CG", "name": "Name", "dice_mode": "Dice",
          # the dashboard's "Replace a lost token"
          "role": "Role", "campaign": "Campaign"}
CORRECTION_LABELS = {"kind": "Kind", "side": "Side", "pool": "Adjust: which",
                     "amount": "Adjust: amount", "purchase": "Amend: purchase line #",
                     "rg": "Amend: RG", "cost": "Amend: cost (CPP)",
                     "strength": "Amend: strength", "table": "Missed roll: table",
                     "subject": "Missed roll: subject", "reason": "Why", "rule": "Rule"}
LABELS |= {f"{prefix}{name}": f"{label} (correction {number})"
           for number, prefix in enumerate(CORRECTIONS, 1)
           for name, label in CORRECTION_LABELS.items()}
templates = Jinja2Templates(directory=HERE / "templates")
# a purchase's mode (3.6175) in the words the history report uses
templates.env.filters |= {"subject": subject_label, "signed": signed,
                          "mode": mode_words, "after_step": step_named,
                          "module_name": module_name}
# Pages run no script but the app's own files, and no other site may frame them.
HEADERS = {"Content-Security-Policy": "default-src 'self'; script-src 'self'; "
           "style-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; "
           "form-action 'self'",
           "Referrer-Policy": "same-origin", "X-Content-Type-Options": "nosniff",
           "Cache-Control": "no-store"}


def page(request: Request, name: str, code: int = 200, *, shown_at: str | None = None,
         **context: Any) -> HTMLResponse:
    """A template rendered with the page's security headers. A form's answer that is a
    page of another address (a refused form, shown again) names it as `shown_at`: htmx
    keeps that in the address bar, so a reload asks for the page, not for the form's
    address, where nothing answers a GET."""
    headers = HEADERS | {"HX-Replace-Url": shown_at} if shown_at else HEADERS
    return templates.TemplateResponse(request, name, context, status_code=code,
                                      headers=headers)


def refusal(error: Exception, labels: dict[str, str] | None = None) -> tuple[int, dict[str, Any]]:
    """A refused form's status and words, as the JSON API gives them (api/errors.py), the
    field named by its label on the page (`field` stays the API's, for `aria-invalid`);
    `labels`: a page's own words for a field, where the forms' would mislead."""
    said = dict(error_body(error)["error"])
    field = said.get("field")
    label = (labels or {}).get(field) or field_label(field) if field else None
    if field and label:  # a field no label names is left as its page's code words it
        said["label"] = label
        said["message"] = _relabelled(str(said["message"]), field, label)
    return status_of(error), said


def field_label(field: str) -> str | None:
    """A field the API names, as the page's form labels it: `purchase_rg.mode` is the
    purchase's `Buy it as`, `roll.dice.0` the roll's `Your dice`, `record_casualty.unit` the
    casualty's `Unit lost` (None: no label known)."""
    if field in LABELS:  # named with its command: the label of that command's form
        return LABELS[field]
    # `roll.drm.0` and `drm[0]` alike: the list's label, not its item's index
    known = next((part for part in reversed(re.split(r"[.\[\]]", field)) if part in LABELS),
                 None)
    return LABELS[known] if known else None


def _relabelled(message: str, field: str, label: str) -> str:
    """The message with the field's API name said as its label: as the message's opening
    `field:`, and quoted anywhere for a name no one would write (`to_version`)."""
    if message.startswith(f"{field}: "):
        message = f"{label}: {message[len(field) + 2:]}"
    if "_" in field or "." in field:
        message = re.sub(rf"(?<![\w.]){re.escape(field)}(?![\w.])", f"“{label}”", message)
    return message


def same_site(request: Request) -> None:
    """A form posted from another site (or a sibling one) is refused: with SameSite=Lax and
    the CSRF token, a login from another site too. Browsers say where a request comes from
    (Sec-Fetch-Site); without it, the Origin header is compared."""
    fetched = request.headers.get("sec-fetch-site")
    origin = request.headers.get("origin")
    if fetched is not None:
        refused = fetched not in ("same-origin", "none")
    else:
        refused = bool(origin) and urlparse(origin).netloc != request.url.netloc
    if refused:
        raise Forbidden("this form is posted from another site")


def form_text(form: Any) -> dict[str, str]:
    """A posted form's fields as text; a file sent where a form takes text is no text (its
    field is then refused as left empty, by name), never its Python description."""
    return {key: value if isinstance(value, str) else "" for key, value in form.items()}


def page_campaign(campaign: str) -> UUID:
    """A page's campaign id; one that is not an id needs a login like any other."""
    try:
        return campaign_id(campaign)
    except RefitError:
        raise LoginNeeded from None
