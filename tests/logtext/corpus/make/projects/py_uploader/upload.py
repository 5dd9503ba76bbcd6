"""Upload build artifacts; logs one line per event with an ISO timestamp (UTC)."""
import sys
import time
from datetime import datetime, timezone


def log(level, message):
    now = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    print(f"{now} {level:<5} {message}", flush=True)


def main(paths, token):
    log("INFO", f"uploader 2.4.1 starting, {len(paths)} file(s) to upload")
    log("WARN", "config key 'retries' is deprecated, use 'upload.retries'")
    for index, path in enumerate(paths):
        req = f"{0x7f3a19 + index:06x}"
        if "tar" in path and not token:
            log("ERROR", f"[req {req}] upload of {path} failed: 403 Forbidden (token has no write scope)")
            log("INFO", "retrying in 0s (attempt 2/2)")
            log("ERROR", f"[req {req}] upload of {path} failed: 403 Forbidden (token has no write scope)")
            log("FATAL", "1 of %d uploads failed, giving up" % len(paths))
            return 1
        log("INFO", f"[req {req}] uploaded {path} (12.{index} KiB in 0.{index + 1}s)")
        time.sleep(0.05)
    log("INFO", "all uploads done")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:], token=None if "--no-token" in sys.argv else "t"))
