"""Themes: the TOML theme files (:mod:`~.files`), the legibility check of every text style the console
uses (:mod:`~.contrast`) and which themes the console offers (:mod:`~.offer`)."""
