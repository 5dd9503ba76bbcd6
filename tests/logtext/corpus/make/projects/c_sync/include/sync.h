#ifndef SYNC_H
#define SYNC_H
#include <stddef.h>

typedef struct {
    char key[64];
    size_t size;
    int dirty;
} entry_t;

int sync_entries(entry_t *entries, size_t count);
int cache_put(const char *key, size_t size);
size_t cache_size(void);
double cache_ratio(size_t hits, size_t total);

#endif
