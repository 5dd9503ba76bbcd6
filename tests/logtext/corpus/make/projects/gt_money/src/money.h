#pragma once
#include <cstdint>
#include <string>

std::int64_t parse_cents(const std::string& text);
std::string format_cents(std::int64_t cents);
