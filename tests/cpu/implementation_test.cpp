#include <gtest/gtest.h>

#include "core/io/input_error.hpp"
#include "core/layout/implementation.hpp"
#include "core/scenario/scenario.hpp"

namespace attnlab {
namespace {

TEST(ImplementationList, KeepsTheOrderGivenAndEachNameOnce) {
  EXPECT_EQ(parse_implementation_list("varlen,naive,varlen,packed", "--impl"),
            (std::vector<Implementation>{Implementation::varlen, Implementation::naive, Implementation::packed}));
}

TEST(ImplementationList, UnknownNameOrEmptyListNamesTheFlag) {
  try {
    parse_implementation_list("padded,flash", "--impl");
    FAIL() << "an unknown name was accepted";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "--impl: expected a comma-separated list of naive, padded, packed, varlen, got \"flash\"");
  }
  EXPECT_THROW(parse_implementation_list(",", "--implementations"), InputError);
  EXPECT_THROW(parse_implementation_list("naive,,packed", "--implementations"), InputError);
  EXPECT_THROW(parse_implementation_list("naive,", "--implementations"), InputError);
}

TEST(DTypeName, ParsesWhatItPrints) {
  for (DType d : {DType::bf16, DType::fp16}) EXPECT_EQ(parse_dtype(dtype_name(d)), d);
  EXPECT_EQ(parse_dtype("fp32"), std::nullopt);
}

}  // namespace
}  // namespace attnlab
