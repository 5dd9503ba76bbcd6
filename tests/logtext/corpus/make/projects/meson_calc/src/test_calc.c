#include <stdio.h>
#include "calc.h"

static int failures;

static void expect(const char *what, int got, int want)
{
    if (got != want) {
        fprintf(stderr, "FAIL %s: got %d, want %d\n", what, got, want);
        failures++;
    } else {
        printf("ok %s\n", what);
    }
}

int main(void)
{
    expect("add", calc_add(2, 3), 5);
    expect("clamp low", calc_clamp(-4, 0, 10), 0);
    expect("clamp high", calc_clamp(14, 0, 10), 10);
    return failures ? 1 : 0;
}
