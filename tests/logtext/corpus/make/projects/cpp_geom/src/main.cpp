#include <iostream>
#include "shape.h"

int main() {
    Polygon square({{0, 0}, {1, 0}, {1, 1}, {0, 1}});
    std::cout << square.describe() << std::endl;
    return 0;
}
