"""The benchmark scripts still run (marked `bench`: `pytest -m bench`, not the default run)."""
