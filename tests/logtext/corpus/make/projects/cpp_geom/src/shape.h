#pragma once
#include <string>
#include <vector>

struct Point { double x, y; };

class Polygon {
public:
    explicit Polygon(std::vector<Point> points) : points_(std::move(points)) {}
    double area() const;
    double perimeter() const;
    Polygon scaled(double factor) const;
    std::string describe() const;
private:
    std::vector<Point> points_;
};
