"""Apply schema migrations to a small sqlite database."""
import sqlite3
import sys

from migrations import runner

if __name__ == "__main__":
    db = sqlite3.connect(sys.argv[1] if len(sys.argv) > 1 else "app.db")
    runner.apply_all(db)
    print("migrations applied")
