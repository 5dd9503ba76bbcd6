#include <cyaml/cyaml.h>
int main(void) { return 0; }
