"""The Refit service's use cases: commands in turn, undo, audit, transfer, the views."""
