#include <stdio.h>
double scale(double v);

int main(void) {
    double v = scale(1.5)
    printf("%f\n", v);
    return 0;
}
