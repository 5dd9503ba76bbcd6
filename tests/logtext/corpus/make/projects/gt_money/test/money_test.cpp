#include <gtest/gtest.h>

#include "../src/money.h"

TEST(ParseCents, WholeUnits) { EXPECT_EQ(parse_cents("12"), 1200); }

TEST(ParseCents, WithDecimals) { EXPECT_EQ(parse_cents("12.05"), 1205); }

TEST(ParseCents, RejectsOneDecimal) { EXPECT_THROW(parse_cents("12.5"), std::invalid_argument); }

TEST(FormatCents, PadsCents) { EXPECT_EQ(format_cents(1205), "12.05"); }

TEST(FormatCents, WholeUnits) { EXPECT_EQ(format_cents(400), "4.00"); }
