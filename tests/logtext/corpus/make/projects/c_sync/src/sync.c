#include <stdio.h>
#include <string.h>
#include "sync.h"

int sync_entries(entry_t *entries, size_t count)
{
    int synced = 0;
    for (size_t i = 0; i < count; i++) {
        if (!entries[i].dirty)
            continue;
        if (cache_put(entries[i].key, entries[i].size) != 0) {
            fprintf(stderr, "sync: cannot cache %s\n", entries[i].key);
            return -1;
        }
        entries[i].dirty = 0;
        synced++;
    }
    return synced;
}
