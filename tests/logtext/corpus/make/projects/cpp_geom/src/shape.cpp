#include "shape.h"
#include <cmath>
#include <sstream>

double Polygon::area() const {
    double sum = 0;
    for (size_t i = 0; i < points_.size(); ++i) {
        const Point &a = points_[i];
        const Point &b = points_[(i + 1) % points_.size()];
        sum += a.x * b.y - b.x * a.y;
    }
    return std::abs(sum) / 2;
}

double Polygon::perimeter() const {
    double sum = 0;
    for (size_t i = 0; i + 1 < points_.size(); ++i) {
        sum += std::hypot(points_[i + 1].x - points_[i].x, points_[i + 1].y - points_[i].y);
    }
    return sum;
}

Polygon Polygon::scaled(double factor) const {
    std::vector<Point> out;
    for (const Point &p : points_) out.push_back({p.x * factor, p.y * factor});
    return Polygon(out);
}

std::string Polygon::describe() const {
    std::ostringstream os;
    os << points_.size() << "-gon, area " << area();
    return os.str();
}
