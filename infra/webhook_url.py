"""A webhook's URL: checked (https, to a public address: no request forged to the service's
own network), sealed at rest (it carries the chat's token), and shown masked."""

from __future__ import annotations

import base64
import ipaddress
import os
import socket
from urllib.parse import urlsplit

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from domain.errors import InvalidCommand
from infra.keys import Keys

MAX_URL = 500  # characters: Discord's and Slack's webhook URLs are under 200
TAG = "refit-hook1:"  # then base64url(nonce || ciphertext and tag)
LOCAL_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
# IPv6 addresses that carry an IPv4 address a host may reach (NAT64, and the old IPv4-
# compatible form): "global" to Python, they are as public as the IPv4 address inside.
NAT64 = ipaddress.ip_network("64:ff9b::/96")
COMPATIBLE = ipaddress.ip_network("::/96")
Address = ipaddress.IPv4Address | ipaddress.IPv6Address


def checked_url(url: object, allow_local: bool) -> str:
    """The URL, if a webhook may post to it; else InvalidCommand naming the field `url`."""
    if not isinstance(url, str) or not url.strip():
        raise InvalidCommand("url: give the webhook's URL (https://...)", field="url")
    url = url.strip()
    if len(url) > MAX_URL or not url.isascii() or any(c.isspace() for c in url):
        raise InvalidCommand(f"url: at most {MAX_URL} ASCII characters, no spaces", field="url")
    try:
        parts = urlsplit(url)
        host = (parts.hostname or "").lower().removesuffix(".")  # "localhost." is localhost
        parts.port  # noqa: B018  (a port that is not a number is refused here)
    except ValueError as error:
        raise InvalidCommand(f"url: cannot be read ({error})", field="url") from None
    if parts.username is not None or parts.password is not None:
        raise InvalidCommand("url: no user or password in the URL", field="url")
    if not host:
        raise InvalidCommand("url: names no host", field="url")
    try:
        host.encode("idna")  # an empty label, or one over 63 characters, is no name
    except UnicodeError:
        raise InvalidCommand(f"url: {host[:80]!r} is not a host name", field="url") from None
    local = host in LOCAL_NAMES
    if local and not allow_local:
        raise InvalidCommand("url: a webhook posts to a public address, not to this machine "
                             "(REFIT_WEBHOOK_ALLOW_LOCAL allows it, for tests)", field="url")
    if parts.scheme != "https" and not (local and parts.scheme == "http"):
        raise InvalidCommand("url: a webhook posts over https only (http only to localhost, "
                             "with REFIT_WEBHOOK_ALLOW_LOCAL)", field="url")
    if not local and not public_host(host):
        raise InvalidCommand("url: a private, loopback or link-local address is refused: "
                             "a webhook posts to a public address", field="url")
    return url


def public_host(host: str) -> bool:
    """Whether a host is a name or a public IP address: a name is checked again when
    posting (`checked_address`), as it may resolve anywhere."""
    try:
        address: Address = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        try:  # an IPv4 address written short or in hex ("127.1", "0x7f.1") is no name
            address = ipaddress.IPv4Address(socket.inet_aton(host))
        except OSError:
            return "." in host and not host.endswith((".local", ".internal", ".localhost"))
    return public_address(address)


def public_address(address: Address) -> bool:
    """Global, and neither multicast nor reserved; an IPv6 address carrying an IPv4 one
    (mapped, 6to4, NAT64, compatible) as public as that IPv4 address."""
    if isinstance(address, ipaddress.IPv6Address):
        inner = address.ipv4_mapped or address.sixtofour or (
            ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
            if address in NAT64 or address in COMPATIBLE else None)
        if inner is not None:
            return public_address(inner)
    return address.is_global and not (address.is_multicast or address.is_reserved)


def checked_address(host: str, port: int, allow_local: bool) -> tuple[str | None, str | None]:
    """The address a post to the host connects to (the one checked, so a name that
    resolves elsewhere a moment later is never reached), or None and why it may not be
    posted to now (what it resolves to)."""
    try:
        found = [str(info[4][0]) for info in
                 socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)]
    except (OSError, UnicodeError) as error:  # a name that is no name: UnicodeError
        return None, f"the host {host} does not resolve ({type(error).__name__})"
    for text in found:
        address = ipaddress.ip_address(text.split("%")[0])
        if not (public_address(address) or (allow_local and address.is_loopback)):
            return None, f"the host {host} resolves to a private address: refused"
    return (found[0], None) if found else (None, f"the host {host} does not resolve")


def masked(url: str) -> str:
    """The URL as the director's page shows it: scheme, host and the path's first part;
    the rest (which holds the chat's token) hidden."""
    parts = urlsplit(url)
    first = parts.path.strip("/").split("/")[0]
    return f"{parts.scheme}://{parts.netloc}/" + (f"{first}/…" if first else "…")


class UrlCipher:
    """URLs sealed with AES-GCM under a key derived from the service's signing key (kept
    out of the database, as the dice seeds' is: infra/at_rest.py), bound to the campaign."""

    def __init__(self, keys: Keys) -> None:
        self.keys = keys

    def _cipher(self) -> AESGCM:
        return AESGCM(self.keys.derived(b"refit webhook url v1"))

    def sealed(self, url: str, campaign: str) -> str:
        """The URL as stored."""
        nonce = os.urandom(12)
        text = nonce + self._cipher().encrypt(nonce, url.encode(), _aad(campaign))
        return TAG + base64.urlsafe_b64encode(text).decode("ascii")

    def opened(self, stored: str, campaign: str) -> str | None:
        """The URL stored; None if this service's key does not open it."""
        if not stored.startswith(TAG):
            return None
        try:
            raw = base64.urlsafe_b64decode(stored[len(TAG):])
            return self._cipher().decrypt(raw[:12], raw[12:], _aad(campaign)).decode()
        except (InvalidTag, ValueError):
            return None


def _aad(campaign: str) -> bytes:
    """What a sealed URL is bound to: its campaign, so it cannot be moved to another."""
    return b"refit webhook\x00" + campaign.encode()
