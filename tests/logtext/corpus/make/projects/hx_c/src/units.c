double scale(double v) { return v * 1000.0; }
int round_to(double v) { return (int)(v + 0.5); }
