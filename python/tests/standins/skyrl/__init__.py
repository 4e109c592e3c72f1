"""Test stand-in (not the trainer): see python/tests/standins/README.md."""
