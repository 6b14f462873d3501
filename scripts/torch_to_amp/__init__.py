"""The modules of scripts/torch-to-amp.py (docs/frontends.md)."""
