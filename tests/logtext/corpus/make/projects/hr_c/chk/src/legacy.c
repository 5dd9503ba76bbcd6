#include <stdio.h>

int legacy_total(int *values, int n) {
    int total;
    int unused = 0;
    for (int i = 0; i < n; i++)
        total += values[i];
    return total;
}
