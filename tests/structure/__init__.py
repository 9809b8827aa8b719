"""The shape of the code: sizes, what imports what, each read declared once."""
