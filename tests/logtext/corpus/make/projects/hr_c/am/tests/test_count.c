#include <assert.h>
#include <stdio.h>
#include "../src/field.h"
int main(void) {
    assert(field_count("a,b,c", ',') == 3);
    assert(field_count("", ',') == 1);
    puts("test_count: ok");
    return 0;
}
