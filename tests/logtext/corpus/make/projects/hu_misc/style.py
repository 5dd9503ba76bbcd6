import os


def report_path(base, name):
    return os.path.join(base, "reports", "quarterly", "finance", "exports", name + ".csv")  # the export folder the finance team reads
