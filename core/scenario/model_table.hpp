#pragma once
// A scenario file's optional [model] table (schema: scenarios/README.md, "[model]"),
// read and written here so scenario_file.cpp only hooks it in.
#include <toml++/toml.h>

#include <string>

#include "core/scenario/model_shape.hpp"

namespace attnlab {

// Reads and checks the table; every error is an InputError naming `file` and model.KEY.
ModelShape read_model_table(const toml::node& node, const std::string& file);

// The table as TOML text, "[model]" line first, read back identically by read_model_table.
std::string model_table_toml(const ModelShape& m);

}  // namespace attnlab
