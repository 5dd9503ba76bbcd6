import unittest

from geo.distance import bearing, haversine


class DistanceTest(unittest.TestCase):
    def test_zero(self):
        self.assertEqual(haversine((0, 0), (0, 0)), 0)

    def test_paris_berlin(self):
        self.assertAlmostEqual(haversine((48.8566, 2.3522), (52.52, 13.405)), 878, delta=5)

    def test_bearing_east(self):
        self.assertAlmostEqual(bearing((0, 0), (0, 10)), 90.0)

    def test_bearing_north_east(self):
        self.assertAlmostEqual(bearing((48.8566, 2.3522), (52.52, 13.405)), 60.4, places=1)
