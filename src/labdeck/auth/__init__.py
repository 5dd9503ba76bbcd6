"""Credentials: the token chain, the token stores (OS keyring with a timeout, opt-in encrypted file,
``--insecure-storage`` plaintext file), ``labdeck login``/``logout`` and the pre-start probes."""

from __future__ import annotations

from labdeck.auth.chain import TokenChain, TokenResolution, read_token_stream, resolve_url
from labdeck.auth.keyring_store import KeyringStore, KeyringUnavailable

__all__ = ["KeyringStore", "KeyringUnavailable", "TokenChain", "TokenResolution", "read_token_stream",
           "resolve_url"]
