#include <string.h>
int count_commas(const char *s) { int n = 0; for (; *s; s++) if (*s == ',') n++; return n; }
static int unused_helper(int x) { return x * 2; }
