"""Numbers read from text: ASCII digits only. str.isdigit() also takes '²' and '٣', which
int() refuses (a 500 where a typed or stored number was expected)."""


def digits(text: str) -> bool:
    """Whether the text is one or more ASCII digits."""
    return text.isascii() and text.isdigit()
