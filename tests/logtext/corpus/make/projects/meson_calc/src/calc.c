#include "calc.h"

int calc_add(int a, int b) { return a + b; }

int calc_clamp(int v, int lo, int hi)
{
    if (v < lo) return lo;
    if (v > hi) return hi;
    return v;
}
