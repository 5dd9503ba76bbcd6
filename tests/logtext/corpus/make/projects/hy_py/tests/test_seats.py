import unittest

from billing.plans import price


class SeatsTest(unittest.TestCase):
    def test_minimum_one_seat(self):
        for seats, want in [(1, 12), (0, 12), (-2, 12), (5, 60)]:
            with self.subTest(seats=seats):
                self.assertEqual(price("team", seats), want)

    def test_free(self):
        self.assertEqual(price("free", 10), 0)

    def test_rounding(self):
        for seats in (2, 3):
            with self.subTest(seats=seats):
                self.assertEqual(price("team", seats) % 12, 1 if seats == 3 else 0)
