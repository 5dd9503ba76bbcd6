"""The base modules every layer may use: paths, the config file, the resolved session, secrets and
log-safe text, private state files, crash reports, TLS trust and the memory tracer.

Nothing here imports another labdeck package, Textual or Rich.
"""
