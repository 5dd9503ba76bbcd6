#include <stdio.h>
int compress_block(const char *in, char *out);
int main(void) { char out[64]; printf("%d\n", compress_block("abc", out)); return 0; }
