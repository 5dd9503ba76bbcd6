"""Sync records to the search index; logs in logfmt like many Go services do."""
import sys
from datetime import datetime, timezone


def log(level, msg, **fields):
    now = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    extra = " ".join(f"{k}={v}" for k, v in fields.items())
    print(f'time={now} level={level} msg="{msg}" {extra}'.rstrip(), flush=True)


def main():
    log("info", "starting sync", component="indexer", batch=500)
    log("warn", "slow response from index", latency_ms=1834, shard=3)
    log("info", "batch indexed", batch=1, docs=500)
    log("info", "batch indexed", batch=2, docs=500)
    log("error", "bulk request rejected", status=413, shard=4, err='"request entity too large (max 10mb)"')
    log("info", "shutting down", pending=812)
    return 2


if __name__ == "__main__":
    sys.exit(main())
