import unittest

from inventory.stock import Stock


class StockTest(unittest.TestCase):
    def setUp(self):
        self.stock = Stock()
        self.stock.add("apple", 3)

    def test_add(self):
        self.stock.add("apple", 2)
        self.assertEqual(self.stock.items["apple"], 5)

    def test_remove_too_many(self):
        with self.assertRaises(ValueError):
            self.stock.remove("apple", 4)

    def test_total(self):
        self.stock.add("pear", 4)
        self.assertEqual(self.stock.total(), 8)

    def test_report(self):
        self.assertEqual(self.stock.report(), "apple=3 total=3")


if __name__ == "__main__":
    unittest.main()
