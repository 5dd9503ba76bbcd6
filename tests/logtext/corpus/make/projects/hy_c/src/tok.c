#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    const char *in = argc > 1 ? argv[1] : "";
    char *copy = malloc(strlen(in));
    strcpy(copy, in);
    printf("tokens: %s\n", copy);
    free(copy);
    return 0;
}
