"""The benchmark scripts still run."""
