#include <stdio.h>
#include <string.h>
#include "../src/field.h"

static int failures;

static void expect_field(const char *line, size_t n, const char *want) {
    char got[64];
    field_get(line, ',', n, got, sizeof got);
    if (strcmp(got, want) != 0) {
        fprintf(stderr, "tests/test_field.c: field %zu of [%s]: got \"%s\", want \"%s\"\n", n, line, got, want);
        failures++;
    }
}

int main(void) {
    expect_field("a,b,c", 1, "b");
    expect_field("x,\"quoted\",z", 1, "quoted");
    expect_field("1,2", 1, "2");
    printf("test_field: %d failure(s)\n", failures);
    return failures ? 1 : 0;
}
