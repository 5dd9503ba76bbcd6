#include <string.h>
#include "sync.h"

static size_t total_size;
static int unused_counter;

int cache_put(const char *key, size_t size)
{
    if (strlen(key) == 0)
        return -1;
    total_size += size;
    return 0;
}

size_t cache_size(void)
{
    return total_size;
}

double cache_ratio(size_t hits, size_t total)
{
    return total ? (double)hits / (double)total : 0.0;
}
