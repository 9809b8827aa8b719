"""The TCP proxy that stands for a database that went away (bench/tcp_proxy.py, which the
fault suite uses too)."""

from bench.tcp_proxy import Proxy, proxied, proxied_database

__all__ = ["Proxy", "proxied", "proxied_database"]
