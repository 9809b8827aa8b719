"""The HTTP service: roles and tokens, secrecy on every path, the fast path, fuzzing."""
