#include <stdlib.h>
#include "parse.h"

struct record parse_line(const char *line) {
    struct record r;
    r.fields = count_commas(line) + 1;
    r.name = line;
    return r
}
