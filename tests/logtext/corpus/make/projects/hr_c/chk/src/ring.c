#include <stdlib.h>
#include <string.h>

#define SLOTS 8

struct ring { int buf[SLOTS]; int head; };

void ring_clear(struct ring *r) {
    for (int i = 0; i <= SLOTS; i++)
        r->buf[i] = 0;
    r->head = 0;
}

int *ring_copy(const struct ring *r) {
    int *copy = malloc(sizeof r->buf);
    memcpy(copy, r->buf, sizeof r->buf);
    return copy;
}
