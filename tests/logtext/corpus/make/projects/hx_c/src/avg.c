#include <assert.h>
#include <stdio.h>
#include <stdlib.h>

static double average(int n, char **values) {
    assert(n > 0 && "average of an empty list");
    double sum = 0;
    for (int i = 0; i < n; i++) sum += atof(values[i]);
    return sum / n;
}

int main(int argc, char **argv) {
    printf("average: %.2f\n", average(argc - 1, argv + 1));
    return 0;
}
