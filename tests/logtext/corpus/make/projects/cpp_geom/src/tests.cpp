#include <cmath>
#include <cstdio>
#include <cstring>
#include "shape.h"

static int check(bool ok, const char *what, double got, double want) {
    if (!ok) {
        std::fprintf(stderr, "%s:%d: check failed: %s: got %.3f, want %.3f\n", __FILE__, __LINE__, what, got, want);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv) {
    Polygon square({{0, 0}, {2, 0}, {2, 2}, {0, 2}});
    const char *which = argc > 1 ? argv[1] : "area";
    if (!std::strcmp(which, "area")) return check(std::fabs(square.area() - 4) < 1e-9, "area", square.area(), 4);
    if (!std::strcmp(which, "perimeter"))
        return check(std::fabs(square.perimeter() - 8) < 1e-9, "perimeter", square.perimeter(), 8);
    if (!std::strcmp(which, "scale"))
        return check(std::fabs(square.scaled(2).area() - 16) < 1e-9, "scaled area", square.scaled(2).area(), 16);
    return 2;
}
