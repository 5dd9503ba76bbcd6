"""Nightly sync of customer records."""
import logging
import os
import sys

logging.basicConfig(level=logging.INFO)
log = logging.getLogger("app.sync")


def main() -> int:
    log.info("starting sync of 3 sources")
    log.info("source crm: 120 records")
    url = os.environ.get("WAREHOUSE_URL")
    if not url:
        log.critical("WAREHOUSE_URL is not set; refusing to sync into the default warehouse")
        log.info("sync aborted after 0.4s")
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
