#pragma once
// The two passes of attention a run times: the forward, and the backward given the
// forward's saved outputs.

namespace attnlab {

enum class Pass { fwd, bwd };
inline const char* pass_name(Pass p) { return p == Pass::fwd ? "fwd" : "bwd"; }

}  // namespace attnlab
