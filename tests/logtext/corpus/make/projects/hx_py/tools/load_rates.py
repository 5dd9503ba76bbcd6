"""Load the historical rate table into memory before the nightly report."""
import os
import signal
import sys

print("loading rates_2019..2026.csv (41,250,000 rows)", flush=True)
print("loaded 12,000,000 rows, rss 3.9 GB", flush=True)
sys.stdout.flush()
# Stands in for the kernel's OOM killer: the process gets SIGKILL, as in a memory-limited job.
os.kill(os.getpid(), signal.SIGKILL)
