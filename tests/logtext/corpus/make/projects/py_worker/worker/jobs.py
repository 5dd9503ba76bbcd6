import logging
import time

log = logging.getLogger("worker.jobs")


def process(batch):
    done = []
    for item in batch:
        if item.get("size", 0) > 100:
            log.error("item %s too large (%d > 100), skipping", item["id"], item["size"])
            continue
        log.info("processed item %s", item["id"])
        done.append(item["id"])
    return done
