#include <stdio.h>
#include "parse.h"
int main(void) { printf("%d\n", parse_line("a,b").fields); return 0; }
