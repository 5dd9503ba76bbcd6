#include "money.h"

#include <stdexcept>

std::int64_t parse_cents(const std::string& text)
{
    auto dot = text.find('.');
    if (dot == std::string::npos) return std::stoll(text) * 100;
    std::string frac = text.substr(dot + 1);
    if (frac.size() != 2) throw std::invalid_argument("want two decimals: " + text);
    return std::stoll(text.substr(0, dot)) * 100 + std::stoll(frac);
}

std::string format_cents(std::int64_t cents)
{
    std::string frac = std::to_string(cents % 100);
    if (frac.size() < 2) frac = "0" + frac;
    return std::to_string(cents / 100) + "." + frac;
}
