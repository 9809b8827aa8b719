"""bench/chaos.py's hostile-body scenario: several large bodies at once (half with the
director's token, half with a wrong one, which should be refused before the body is
read), then malformed bodies one by one; the service's peak RSS, and every 5xx."""

from __future__ import annotations

import argparse
import json
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
from chaos_kit import Service, service

COMMAND = {"type": "credit_cpp", "side": "German", "amount": 1, "reason": "hostile"}
JSON = "application/json"
# name -> (content type, body): what a careless or hostile client sends
MALFORMED: dict[str, tuple[str, bytes]] = {
    "not_json": (JSON, b'{"type": "credit_cpp", '),
    "empty": (JSON, b""),
    "not_utf8": (JSON, b'{"type": "credit_cpp", "side": "\xff\xfe", "amount": 1}'),
    "utf16": (JSON, json.dumps(COMMAND).encode("utf-16")),
    "text_plain": ("text/plain", json.dumps(COMMAND).encode()),
    "null": (JSON, b"null"),
    "array": (JSON, b"[1, 2, 3]"),
    "nan": (JSON, b'{"type": "credit_cpp", "side": "German", "amount": NaN, "reason": "x"}'),
    "deep_nesting": (JSON, b"[" * 100_000 + b"]" * 100_000),
    "huge_number": (JSON, b'{"type": "credit_cpp", "side": "German", "amount": '
                    + b"9" * 100_000 + b', "reason": "x"}'),
    "long_name": (JSON, json.dumps({"type": "record_casualty", "side": "German",
                                    "unit": "x" * 1_000_000, "cvp": 2}).encode()),
}


def large_body(megabytes: float) -> bytes:
    """A valid command padded with a list of zeros to `megabytes`: cheap to send, dear to
    parse (a Python int reference per two bytes)."""
    head = json.dumps(COMMAND)[:-1].encode() + b', "pad": ['
    zeros = max(1, int(megabytes * 1_000_000) // 2)
    return head + b"0," * (zeros - 1) + b"0]}"


def post(running: Service, campaign: str, token: str, content_type: str,
         body: bytes) -> int | None:
    """POST a raw body to the campaign's command route: its status, None if no answer."""
    try:
        return httpx.post(f"{running.base}/campaigns/{campaign}/commands", content=body,
                          headers={"Authorization": f"Bearer {token}",
                                   "Content-Type": content_type}, timeout=120).status_code
    except httpx.HTTPError:
        return None


def hostile_bodies(schema: str, args: argparse.Namespace) -> dict[str, Any]:
    """Large bodies at once, then malformed ones; the service still answers after."""
    with service(schema) as running:
        campaign = running.create("Hostile")
        ident, token = campaign["id"], campaign["tokens"]["director"]
        warm = post(running, ident, token, JSON, json.dumps(COMMAND).encode())
        baseline = running.peak_rss_mb()
        body = large_body(args.body_mb)
        tokens = [token if n % 2 == 0 else "not-a-token" for n in range(args.bodies)]
        with ThreadPoolExecutor(max_workers=args.bodies) as pool:
            large = list(pool.map(lambda t: post(running, ident, t, JSON, body), tokens))
        malformed = {name: post(running, ident, token, kind, raw)
                     for name, (kind, raw) in MALFORMED.items()}
        after = post(running, ident, token, JSON, json.dumps(COMMAND).encode())
        statuses = [*large, *malformed.values()]
        return {
            "bodies": args.bodies, "body_mb": round(len(body) / 1_000_000, 1),
            "large_statuses": {"director_token": sorted(Counter(
                str(s) for s, t in zip(large, tokens, strict=True) if t == token).items()),
                "wrong_token": sorted(Counter(
                    str(s) for s, t in zip(large, tokens, strict=True) if t != token).items())},
            "malformed_statuses": malformed,
            "5xx": sum(1 for s in statuses if s is None or s >= 500),
            "answers_after": after, "warm_up": warm,
            "baseline_rss_mb": baseline, "peak_rss_mb": running.peak_rss_mb()}
