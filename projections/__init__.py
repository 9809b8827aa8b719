"""Projections: the CG Roster, RG Purchase Record, CVP, ELR and rolls, folded from events."""
