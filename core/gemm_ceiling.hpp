#pragma once
// The measured matrix-product ceiling a results folder ships beside its CSVs
// (results/h100/ceilings.toml): what a training step's GEMMs are priced at.
#include <filesystem>
#include <string>

namespace attnlab {

struct GemmCeiling {
  double tflops = 0;   // bf16 TFLOP/s (10^12 FLOP/s) of one large matrix product
  std::string what;    // the product that was timed
  std::string gpu, date, source;
};

inline constexpr const char* ceilings_file_name = "ceilings.toml";

// Reads the [gemm_bf16] table; throws InputError naming the file and the key.
GemmCeiling read_gemm_ceiling(const std::filesystem::path& file);

}  // namespace attnlab
