import os
import sqlite3
import unittest


class QuoteStoreTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        path = os.environ.get("QUOTES_DB", "fixtures/quotes.sqlite")
        cls.db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        cls.db.execute("select count(*) from quotes")

    def test_count(self):
        self.assertEqual(self.db.execute("select count(*) from quotes").fetchone()[0], 3)

    def test_zones(self):
        self.assertTrue(self.db.execute("select zone from quotes").fetchall())


class ParseTest(unittest.TestCase):
    def test_split(self):
        self.assertEqual("EU;1;4.5".split(";"), ["EU", "1", "4.5"])
