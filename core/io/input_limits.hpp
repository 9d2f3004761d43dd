#pragma once
// The largest inputs attnlab accepts (stated in scenarios/README.md, "Limits"). Each is
// checked when a file is read, before anything of that size is allocated, so that a small
// hostile file cannot ask for gigabytes, minutes, or a number that overflows downstream.
#include <cstdint>

namespace attnlab {

// ---- files ----------------------------------------------------------------
inline constexpr std::int64_t max_scenario_file_bytes = std::int64_t{1} << 20;   // 1 MiB of TOML
inline constexpr std::int64_t max_lengths_csv_bytes = std::int64_t{64} << 20;    // 64 MiB
inline constexpr std::int64_t max_results_csv_bytes = std::int64_t{64} << 20;    // 64 MiB
inline constexpr std::int64_t max_results_rows = std::int64_t{1} << 16;          // rows kept from one results CSV
inline constexpr std::int64_t max_results_folder_rows = std::int64_t{1} << 18;   // rows loaded from all of them
inline constexpr std::int64_t max_ceilings_file_bytes = std::int64_t{64} << 10;  // 64 KiB of TOML
// One CSV record holds at most so many cells (a header's columns too): cells are strings, so
// a line of commas would otherwise ask for 32 bytes per byte of the file.
inline constexpr std::int64_t max_csv_cells = 1024;
// A text cell of a results or GEMM file (a scenario, source, GPU, commit): tables pad every
// row to their widest cell, and the rows of all files are held together.
inline constexpr std::int64_t max_text_cell_bytes = 256;

// ---- measured times (results rows, GEMM rows; a step's parts from 0): at least a nanosecond,
// below what a CUDA event resolves, and at most 1,000 s, above any kernel or training step
// attnlab times; so every sum, ratio and saving the step's chain forms from them is finite
// (a ratio of two times at most 10^12).
inline constexpr double min_measured_us = 1e-3;
inline constexpr double max_measured_us = 1e9;

// ---- ceilings (ceilings.toml): a rate below this prices a step at more than max_measured_us x 1e9
inline constexpr double min_ceiling_rate = 1e-3;  // TFLOP/s or TB/s

// ---- TOML shape (toml++ recurses once per level; see core/io/toml_guard.hpp) ---------
inline constexpr int max_toml_nesting = 8;  // open [ and { at once
inline constexpr int max_key_parts = 8;     // parts of a dotted key or a table header
inline constexpr int max_key_bytes = 64;    // bytes of one key part

// ---- the attention shape --------------------------------------------------
inline constexpr std::int64_t max_heads = 128;  // query heads; kv_heads divides heads
inline constexpr std::int64_t max_head_dim = 256;

// ---- the [model] table of the training step (heads and head_dim as above: each layer's
// attention is modelled as a scenario of that shape) --------------------------------
inline constexpr std::int64_t max_model_layers = 1024;
inline constexpr std::int64_t max_model_width = 65536;
inline constexpr std::int64_t max_mlp_ratio = 64;
inline constexpr std::int64_t max_vocab = std::int64_t{1} << 24;
inline constexpr std::int64_t max_window_pattern = 1024;  // letters
// Matrix parameters: layers x (width x 4 heads x head_dim + 2 mlp_ratio width^2) + width x vocab.
inline constexpr std::int64_t max_matrix_params =
    max_model_layers *
        (max_model_width * 4 * max_heads * max_head_dim + 2 * max_mlp_ratio * max_model_width * max_model_width) +
    max_model_width * max_vocab;
static_assert(max_matrix_params > 0 && max_matrix_params < (std::int64_t{1} << 53),
              "matrix parameters exact in a double");

// ---- documents and layouts --------------------------------------------------
inline constexpr std::int64_t max_tokens = std::int64_t{1} << 24;            // all documents together
inline constexpr std::int64_t max_documents = max_tokens;                    // every document has a token
inline constexpr std::int64_t max_row_length = std::int64_t{1} << 20;        // a document, row_len, pad_to
inline constexpr std::int64_t max_layout_positions = std::int64_t{1} << 24;  // each of padded, packed, varlen
// Counting the packed layout costs (query tiles of a row) x (document pieces of that row),
// at most row_len x (documents + rows) with 1-row tiles: kept to seconds.
inline constexpr std::int64_t max_row_len_times_documents = std::int64_t{1} << 32;

// ---- a sliding window (left, right): keys counted beyond a row are meaningless, and q + right must fit int ----
inline constexpr std::int64_t max_window = max_row_length;

// ---- the flash tile the cost model is asked for (attnlab model --tile) ---------
inline constexpr std::int64_t max_tile_side = 256;

// Why nothing downstream overflows int64 (core/cost/cost_model.cpp, core/layout/layout.hpp):
// a row of E positions counted under a Br x Bc tile computes ceil(E/Br)*Br x ceil(E/Bc)*Bc
// < (E + t)^2 scores, t = max_tile_side; naive's one P x P tile per padded row computes
// P^2 = E^2. Every layout has at most max_layout_positions = N positions in rows of at most
// max_row_length = L, and at most N rows, so one head computes fewer than
// sum (E + t)^2 <= N * (L + 2t + t^2) scores. The largest figure is the backward FLOPs,
// 10 * head_dim * heads * scores; the HBM bytes stay below 12 bytes per score (S, P) plus
// 4 * head_dim * kv_heads per key loaded (K and V; keys loaded <= sum E^2 <= N * L).
inline constexpr std::int64_t max_scores_per_head =
    max_layout_positions * (max_row_length + 2 * max_tile_side + max_tile_side * max_tile_side);
inline constexpr std::int64_t max_flops_bwd = 10 * max_head_dim * max_heads * max_scores_per_head;
static_assert(max_scores_per_head / max_layout_positions ==
              max_row_length + 2 * max_tile_side + max_tile_side * max_tile_side);
static_assert(max_flops_bwd / (10 * max_head_dim * max_heads) == max_scores_per_head, "backward FLOPs overflow int64");
static_assert(max_flops_bwd < INT64_MAX / 4 * 3, "keep a quarter of int64 as margin");
inline constexpr std::int64_t max_hbm_bytes =
    12 * max_heads * max_scores_per_head + 4 * max_head_dim * max_heads * max_layout_positions * max_row_length;
static_assert(max_hbm_bytes > 0 && max_hbm_bytes < (std::int64_t{1} << 62), "HBM bytes overflow int64");
// The backward model (core/cost/backward_cost.cpp) moves at most 18 bytes per score (naive's P,
// dP, dS) and, per key or query a tile loads (each <= N * L), K and V (4 * head_dim *
// kv_heads), Q and dO (4 * head_dim * heads), dQ's fp32 sums (4 * head_dim * heads) and
// LSE and delta (8 * heads), plus whole-buffer terms under 32 * N * head_dim * heads.
inline constexpr std::int64_t max_backward_hbm_bytes =
    24 * max_heads * max_scores_per_head + max_layout_positions * max_row_length * max_heads * (12 * max_head_dim + 8) +
    32 * max_layout_positions * max_head_dim * max_heads;
static_assert(max_backward_hbm_bytes > 0 && max_backward_hbm_bytes < INT64_MAX / 8 * 7,
              "backward HBM bytes overflow int64");

}  // namespace attnlab
