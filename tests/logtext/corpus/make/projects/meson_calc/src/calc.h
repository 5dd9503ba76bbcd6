#ifndef CALC_H
#define CALC_H
int calc_add(int a, int b);
int calc_clamp(int v, int lo, int hi);
#endif
