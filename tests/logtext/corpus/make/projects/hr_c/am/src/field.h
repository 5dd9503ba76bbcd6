#ifndef FIELD_H
#define FIELD_H
#include <stddef.h>
size_t field_count(const char *line, char sep);
int field_get(const char *line, char sep, size_t n, char *out, size_t cap);
#endif
