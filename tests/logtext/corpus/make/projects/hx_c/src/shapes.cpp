#include <vector>
#include <memory>

struct Shape { virtual ~Shape() = default; virtual double area() const = 0; };
struct Square : Shape { double side; explicit Square(double s) : side(s) {} double area() const override { return side * side; } };

double total_area(const std::vector<std::unique_ptr<Shape>>& shapes) {
    double sum = 0;
    for (const auto& s : shapes) sum += s->area();
    return sum;
}

int main() {
    std::vector<std::unique_ptr<Shape>> shapes;
    shapes.push_back(std::make_unique<Square>(2.0));
    std::vector<std::unique_ptr<Shape>> copy = shapes;
    return total_area(copy) > 0 ? 0 : 1;
}
