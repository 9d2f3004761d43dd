#pragma once
// The measured ceilings a results folder ships beside its CSVs (ceilings.toml, written by
// python -m attnlab.peers.ceilings): the GEMM rate a training step's matrix products are priced at
// and the roofline's two roofs. TOML, read through the project's guarded reader.
#include <filesystem>
#include <optional>
#include <string>

namespace attnlab {

// Where one ceiling was measured, as the file says.
struct CeilingOrigin {
  std::string what;  // the operation that was timed
  std::string gpu, date, source;
};

struct Ceilings {
  double tflops = 0;  // [gemm_bf16] tflops: one large bf16 matrix product, 10^12 FLOP/s
  double tbps = 0;    // [copy] tbps: a device-to-device copy, bytes read plus written, 10^12 B/s
  CeilingOrigin gemm, copy;

  double roof_tflops(double flops_per_byte) const;  // the roofline at that intensity
  double ridge() const { return tflops / tbps; }    // FLOPs per byte where the two roofs meet
};

inline constexpr const char* ceilings_file_name = "ceilings.toml";

// Reads the [gemm_bf16] and [copy] tables; throws InputError naming the file and the key.
Ceilings read_ceilings(const std::filesystem::path& file);

}  // namespace attnlab
