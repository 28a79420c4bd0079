"""Preset files (TOML). The file name is the preset name; see ``autoalign.config``."""
