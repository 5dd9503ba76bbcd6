#include <stdio.h>
#include <stdlib.h>

typedef struct { int *slots; int size; int head; } ring;

static int ring_sum(const ring *r) {
    int sum = 0;
    for (int i = 0; i <= r->size; i++) sum += r->slots[i];
    return sum;
}

int main(void) {
    ring r = { malloc(4 * sizeof(int)), 4, 0 };
    for (int i = 0; i < 4; i++) r.slots[i] = i;
    printf("sum %d\n", ring_sum(&r));
    free(r.slots);
    return 0;
}
