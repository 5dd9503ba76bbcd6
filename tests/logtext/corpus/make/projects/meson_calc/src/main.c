#include <stdio.h>
#include "calc.h"

int main(void)
{
    printf("%d\n", calc_clamp(calc_add(40, 5), 0, 42));
    return 0;
}
