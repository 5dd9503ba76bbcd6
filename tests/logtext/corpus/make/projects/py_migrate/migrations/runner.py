import logging

logging.basicConfig(level=logging.INFO, format="%(levelname)s:%(name)s:%(message)s")
log = logging.getLogger("migrations")


class MigrationError(RuntimeError):
    pass


STEPS = [
    ("0001_users", "CREATE TABLE users (id INTEGER PRIMARY KEY, email TEXT UNIQUE)"),
    ("0002_orders", "CREATE TABLE orders (id INTEGER PRIMARY KEY, user_id INTEGER REFERENCES users(id))"),
    ("0003_orders_total", "ALTER TABLE orderz ADD COLUMN total REAL DEFAULT 0"),
]


def apply_one(db, name, sql):
    try:
        db.execute(sql)
    except Exception as exc:
        raise MigrationError(f"migration {name} failed") from exc
    log.info("applied %s", name)


def apply_all(db):
    for name, sql in STEPS:
        apply_one(db, name, sql)
    db.commit()
