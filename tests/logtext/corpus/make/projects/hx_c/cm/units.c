double scale(double v) { return v * 1000.0; }
