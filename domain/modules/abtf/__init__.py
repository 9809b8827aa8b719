"""ABtF (A Bridge Too Far, Chapter R, 9.x): its data (module.json), which the generic
Module applies whole."""

from domain.rules import Module

MODULE = Module
