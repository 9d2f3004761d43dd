#include "core/io/number_flags.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

#include "core/io/input_error.hpp"

namespace attnlab {
namespace {

constexpr std::uint64_t largest = std::numeric_limits<std::uint64_t>::max();

std::string refusal(const char* text, std::uint64_t min, std::uint64_t max) {
  try {
    parse_integer_flag(text, "--seed", min, max);
  } catch (const InputError& e) {
    return e.what();
  }
  return "accepted";
}

TEST(NumberFlags, IntegersAreDecimalDigitsWithinTheirRange) {
  EXPECT_EQ(parse_integer_flag("0", "--seed", 0, largest), 0u);
  EXPECT_EQ(parse_integer_flag("10", "--seed", 0, largest), 10u);
  EXPECT_EQ(parse_integer_flag("18446744073709551615", "--seed", 0, largest), largest);
  EXPECT_EQ(parse_integer_flag("1024", "--ranks", 1, 1024), 1024u);
  EXPECT_TRUE(integer_flag_problem("42", 0, 100).empty());
}

TEST(NumberFlags, NoBaseSignWrapOrTrailingTextIsAccepted) {
  // strtol and CLI11 read these as 8, 16, 2^64 - 1 and 16: each is refused, quoting the text.
  for (const char* text : {"010", "0x10", "-1", "+1", "1e3", "16 ", " 16", "", "nan", "inf", "1.0", "2x",
                           "18446744073709551616", "99999999999999999999999"})
    EXPECT_EQ(refusal(text, 0, largest),
              std::string("--seed: expected an integer from 0 to 18446744073709551615, got \"") + text + "\"")
        << text;
  EXPECT_EQ(refusal("1025", 1, 1024), "--seed: expected an integer from 1 to 1024, got \"1025\"");
  EXPECT_EQ(refusal("0", 1, 1024), "--seed: expected an integer from 1 to 1024, got \"0\"");
  EXPECT_EQ(integer_flag_problem("0x10", 0, 7), "expected an integer from 0 to 7, got \"0x10\"");
  EXPECT_EQ(refusal("\x1b[31m", 0, 1), "--seed: expected an integer from 0 to 1, got \"\\x1b[31m\"");
}

TEST(NumberFlags, RealsAreDigitsWithOneOptionalFraction) {
  EXPECT_EQ(parse_real_flag("1.75", "--text-scale", 0.75, 3), 1.75);
  EXPECT_EQ(parse_real_flag("3", "--text-scale", 0.75, 3), 3.0);
  EXPECT_EQ(parse_real_flag("0.75", "--text-scale", 0.75, 3), 0.75);
  for (const char* text : {"nan", "inf", "1e0", "0x1", "-1", "01.5", ".5", "1.", "1.2.3", "3.01", "0.7", ""})
    EXPECT_THROW(parse_real_flag(text, "--text-scale", 0.75, 3), InputError) << text;
  try {
    parse_real_flag("inf", "--text-scale", 0.75, 3);
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "--text-scale: expected a number from 0.75 to 3, got \"inf\"");
  }
}

}  // namespace
}  // namespace attnlab
