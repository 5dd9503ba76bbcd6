#include <stdio.h>
#include <math.h>
#include "sync.h"

int main(int argc, char **argv)
{
    entry_t entries[3] = {{"alpha", 10, 1}, {"beta", 20, 0}, {"gamma", 30, 1}};
    int n = sync_entries(entries, 3);
    if (n < 0)
        return 1;
    printf("synced %d entries, cache %zu bytes, ratio %.2f\n", n, cache_size(), cache_ratio(2, 3));
    printf("log2 of cache: %.1f\n", log2((double)cache_size()));
    return 0;
}
