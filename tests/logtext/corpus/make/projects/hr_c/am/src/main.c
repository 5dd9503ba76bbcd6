#include <stdio.h>
#include "field.h"
int main(int argc, char **argv) {
    char out[64];
    if (argc < 3) { fprintf(stderr, "usage: csvq LINE N\n"); return 2; }
    if (field_get(argv[1], ',', (size_t)argv[2][0] - '0', out, sizeof out)) return 1;
    puts(out);
    return 0;
}
