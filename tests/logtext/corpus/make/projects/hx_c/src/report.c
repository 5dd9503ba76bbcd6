#include <stdio.h>
#include "build_info.h"

int main(void) {
    printf("report %s\n", BUILD_VERSION);
    return 0;
}
