"""Each module's RePh told as stories: ABtF, PBr and KGP, rule by rule."""
