"""PBr (rules 3.x; the seeds name no title): its data (module.json), which the generic
Module applies whole."""

from domain.rules import Module

MODULE = Module
