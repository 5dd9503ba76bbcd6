"""Upload the invoice export; retries twice on a refused connection."""
import logging
import socket
import time

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
log = logging.getLogger("upload")


def send(host: str, port: int) -> None:
    with socket.create_connection((host, port), timeout=2):
        pass


def main() -> None:
    for attempt in (1, 2):
        try:
            send("127.0.0.1", 9)
            return
        except ConnectionRefusedError:
            log.warning("upload attempt %d refused, retrying", attempt)
            time.sleep(0.2)
    log.info("last attempt")
    send("127.0.0.1", 9)


if __name__ == "__main__":
    main()
