"""The campaign's dice: server dice from the committed seed (CONTRACT 'Dice') or entered
physical dice, each roll's key, the dice an undone key showed, and the tallies of what
was rolled (per CG Date and per CG)."""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING, Any, cast

from domain import commands as cmd
from domain.campaign.events import NOT_DATA, CampaignEvent
from domain.campaign.handlers import handles
from domain.campaign.part import Part
from domain.dice import (
    DICE_PER_KIND,
    check_entered,
    dice_from_seed,
    effective_seed,
    subject_key,
)
from domain.digits import digits
from domain.errors import InvalidCommand, RuleViolation
from domain.hashing import sha256_hex

if TYPE_CHECKING:
    from domain.campaign.aggregate import Campaign


def new_seed(mode: str) -> bytes | None:
    """A campaign's dice seed: 32 random bytes in server mode (entered dice need none)."""
    return secrets.token_bytes(32) if mode == "server" else None


class Dice(Part):
    """Seeds and keys, and what has been rolled. An undo keeps the seed (a revealed one
    stays spent) and the dice every key showed (a redo cannot fish for new ones)."""

    name = "dice"
    # The shares and whether they are closed are kept too: the dice already shown were
    # read with them, so an undo cannot open the mix again.
    kept_by_undo = frozenset({"seed", "seed_commitment", "sealed_rolls_on_seed",
                              "rolled_before", "shares", "shares_closed"})
    flat = frozenset({"shares", "slots", "epochs", "rolls_today", "results_today",
                      "table_rolls_cg"})

    def __init__(self, mode: str, seed: str | None, seed_commitment: str | None) -> None:
        self.mode = mode  # server or entered
        self.seed = seed  # private until SeedRevealed
        self.seed_commitment = seed_commitment
        self.sealed_rolls_on_seed = 0  # secret server rolls the current seed would open
        self.shares: dict[str, str] = {}  # side -> its seed share (hex), in side order
        self.shares_closed = False  # a server roll was made or the seed revealed
        self.slots: dict[str, int] = {}  # slot rolled on this CG Date -> its epoch
        self.rolled_before: dict[str, list[int]] = {}  # an undone roll's key -> its dice
        self.epochs: dict[str, int] = {}  # a re-rolled slot -> its authorized epoch
        self.rolls_today: dict[str, int] = {}  # table/side -> rolls on this CG Date
        self.results_today: dict[str, int] = {}  # table/side/result -> rolls that gave it
        self.table_rolls_cg: dict[str, int] = {}  # table/side -> rolls in the CG

    def key(self, slot: str) -> str:
        """The key of a roll for a slot (CG Date/table/side/subject): the slot and its
        re-roll epoch, which only a director's authorized re-roll raises."""
        cg_date, table, side, subject = slot.split("/", 3)
        return subject_key(cg_date, table, side, subject, self.epochs.get(slot, 0))

    def has_rolled(self, slot: str) -> bool:
        """Whether a standing roll was made for the slot on this CG Date."""
        return slot in self.slots

    def authorizations(self) -> dict[str, dict[str, Any]]:
        """The rolls a director's ruling allows outside their step, by table/side/subject:
        the slot a voided roll re-rolls (with its step), or none for a missed roll (kept
        only once a ruling gives one, so a campaign that has none keeps its shape)."""
        return self.__dict__.setdefault("authorized", {})

    def is_authorized(self, table: str, side: str, subject: str) -> bool:
        """Whether a ruling has authorized a roll of the table for that side and subject."""
        return f"{table}/{side}/{subject}" in self.__dict__.get("authorized", {})

    def authorization(self, table: str, side: str, subject: str) -> dict[str, Any] | None:
        """The step a ruling authorized a roll of the table for that side and subject in
        (a voided roll's re-roll, a missed roll), or None when no ruling did."""
        allowed: dict[str, Any] | None = self.__dict__.get("authorized", {}).get(
            f"{table}/{side}/{subject}")
        return allowed

    def rolled(self, table: str, side: str) -> int:
        """How many times the side has rolled the table on this CG Date."""
        return self.rolls_today.get(f"{table}/{side}", 0)

    def rolled_in_cg(self, table: str, side: str) -> int:
        """How many times the side has rolled the table in the CG."""
        return self.table_rolls_cg.get(f"{table}/{side}", 0)

    def gave(self, table: str, side: str, result: str, subject: str | None = None) -> bool:
        """Whether a roll of the table by the side on this CG Date gave that result (for
        that subject, if one is named)."""
        at = "" if subject is None else f"@{subject}"
        return bool(self.results_today.get(f"{table}/{side}/{result}{at}"))

    def given_for(self, table: str, side: str, result: str) -> list[str]:
        """The subjects for which a roll of the table by the side on this CG Date gave
        that result, in the order rolled."""
        head = f"{table}/{side}/{result}@"
        return [key[len(head):] for key, count in self.results_today.items()
                if count and key.startswith(head)]

    def dice(self, key: str, kind: str, entered: list[int] | None) -> list[int]:
        """The roll's dice: what its key showed before an undo, the entered dice, or the
        seed's."""
        before = self.rolled_before.get(key)
        if before is not None:  # redone after an undo: the key keeps the dice it showed
            if entered is not None and list(entered) != before:
                raise RuleViolation(f"roll {key} showed {before} before it was undone; a "
                                    "redo keeps its dice (only a director's re-roll "
                                    "changes them)")
            return list(before)
        if self.mode == "entered":
            return check_entered(entered, kind)
        if entered is not None:
            raise InvalidCommand("this campaign rolls server dice: the ledger rolls them, "
                                 "give none", field="dice")
        self.check_seed()
        return dice_from_seed(self.effective(), key, DICE_PER_KIND[kind])

    def effective(self) -> bytes:
        """E: the private seed mixed with the sides' shares (CONTRACT 'Dice')."""
        shares = [bytes.fromhex(share) for share in self.shares.values()]  # in side order
        return effective_seed(bytes.fromhex(cast(str, self.seed)), shares)

    def check_share(self, side: str) -> None:
        """A share is taken once per side, before the campaign's first server roll."""
        if self.mode != "server":
            raise InvalidCommand("this campaign's dice are entered: it has no seed to mix "
                                 "a share into", field="share")
        self.check_seed()
        if self.shares_closed:
            raise RuleViolation("a seed share is taken only before the campaign's first "
                                "server roll (and before its seed is revealed): dice "
                                "have been read from this seed", rule="CONTRACT 'Dice'")
        if side in self.shares:
            raise RuleViolation(f"{side} already gave its seed share: one share per side",
                                rule="CONTRACT 'Dice'")

    def check_seed(self) -> None:
        """Server dice need the private seed (an import without it has none, nor a seed
        stored encrypted under another signing key)."""
        if self.seed is None:
            raise RuleViolation("this campaign was imported without its private dice seed "
                                "(or its seed does not open with this service's signing "
                                "key), so its server dice cannot go on: import the "
                                "operator's export made with the seed (refit export "
                                "--with-seed)")

    def check_reveal(self) -> None:
        """Only server dice have a seed to reveal."""
        if self.mode != "server":
            raise InvalidCommand("this campaign's dice are entered: it has no seed")

    def check_early_reveal(self) -> None:
        """The director may reveal early even with secret rolls made with the seed: the
        contract lets him, and those rolls become checkable by anyone (their dice too)."""
        self.check_seed()

    def reveal(self, commit_next: bool) -> dict[str, Any]:
        """The SeedRevealed fields: the seed, and a fresh one committed if play goes on."""
        following = secrets.token_bytes(32) if commit_next else None
        return {"seed": cast(str, self.seed),
                "next_commitment": sha256_hex(following) if following else None,
                "next_seed": following.hex() if following else None}


class DiceRolled(CampaignEvent):
    """A dr or DR on a table: dice, itemized DRM, Final roll and result."""

    side: str
    key: str
    table: str
    rule: str
    title: str
    kind: str
    subject: str
    dice: list[int]
    original: int
    drm: list[dict[str, Any]]
    final: int
    target: int | None
    result: str
    cg_date: str
    step: str
    entered_by: str | None

    def apply(self, campaign: Any) -> None:
        dice: Dice = campaign.dice
        dice.__dict__.get("authorized", {}).pop(f"{self.table}/{self.side}/{self.subject}",
                                                None)  # a ruling's authorization is used
        slot, epoch = self.key.rsplit("/", 1)
        dice.slots[slot] = int(epoch) if digits(epoch) else 0
        tally = f"{self.table}/{self.side}"
        dice.rolls_today[tally] = dice.rolls_today.get(tally, 0) + 1
        dice.table_rolls_cg[tally] = dice.table_rolls_cg.get(tally, 0) + 1
        for gave in (f"{tally}/{self.result}", f"{tally}/{self.result}@{self.subject}"):
            dice.results_today[gave] = dice.results_today.get(gave, 0) + 1
        if self.sealed is not None and self.entered_by is None:
            dice.sealed_rolls_on_seed += 1
        if self.entered_by is None and dice.mode == "server":
            dice.shares_closed = True  # dice were read from E: no share may change it now


class SeedRevealed(CampaignEvent):
    """The seed is public: its rolls can be recomputed. Before CG End a new seed is
    committed at once, so the rolls still to come stay unpredictable."""

    not_data = NOT_DATA | {"next_seed"}  # the new seed is private, like the first
    seed: str
    next_commitment: str | None
    next_seed: str | None

    def apply(self, campaign: Any) -> None:
        dice: Dice = campaign.dice
        dice.seed = self.next_seed
        dice.seed_commitment = self.next_commitment
        dice.sealed_rolls_on_seed = 0
        dice.shares = {}  # the shares mixed into the first seed only: the fresh one is S
        dice.shares_closed = True


class SeedShareContributed(CampaignEvent):
    """A side's seed share, public: it is mixed with the server's secret seed, so neither
    the server nor one side alone chooses the dice (CONTRACT 'Dice')."""

    side: str
    share: str

    def apply(self, campaign: Any) -> None:
        dice: Dice = campaign.dice
        given = dice.shares | {self.side: self.share}
        dice.shares = {side: given[side] for side in campaign.sides if side in given}


@handles(cmd.ContributeSeed)
def contribute_seed(campaign: Campaign, command: cmd.ContributeSeed, actor: str) -> None:
    """Take a side's seed share before the first server roll (CONTRACT 'Dice')."""
    campaign.reph.check_not_ended()
    side = campaign.check_side(command.side)
    campaign.dice.check_share(side)
    campaign._record(SeedShareContributed, actor, side=side, share=command.share.lower())
