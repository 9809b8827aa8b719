"""The TCP proxy that stands for a database that went away (bench/tcp_proxy.py, which the
fault suite uses too)."""

from bench.tcp_proxy import Proxy, proxied

__all__ = ["Proxy", "proxied"]
