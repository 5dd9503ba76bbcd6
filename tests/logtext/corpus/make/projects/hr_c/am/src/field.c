#include <string.h>
#include "field.h"

size_t field_count(const char *line, char sep) {
    size_t n = 1;
    for (; *line; line++)
        if (*line == sep) n++;
    return n;
}

int field_get(const char *line, char sep, size_t n, char *out, size_t cap) {
    size_t i = 0;
    while (i < n && *line) {
        if (*line == sep) i++;
        line++;
    }
    size_t len = 0;
    while (line[len] && line[len] != sep && line[len] != '"') len++;
    if (len >= cap) return -1;
    memcpy(out, line, len);
    out[len] = '\0';
    return 0;
}
