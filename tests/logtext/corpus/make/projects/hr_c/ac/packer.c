#include <stdio.h>
int main(void) { puts("packer"); return 0; }
