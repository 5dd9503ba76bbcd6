#include <stdio.h>
double scale(double v);
int round_to(double v) { return (int)v; }
int main(void) {
    printf("%d\n", round_to(scale(1.5)));
    return 0;
}
