class Response:
    def __init__(self, status, error=None):
        self.status = status
        self.error = error


def call_with_retry(send, attempts=3):
    last = None
    for _ in range(attempts):
        last = send()
        if last.status == "ok":
            return last
    return last
