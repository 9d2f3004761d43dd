#!/usr/bin/env bash
# Which bad input crashes the operator: each case alone, with Python's fault handler.
set -u
export PYTHONUNBUFFERED=1 ATTNLAB_SCENARIOS=$PWD/scenarios
cat > /tmp/case.py <<'PY'
import sys, faulthandler, torch
faulthandler.enable()
sys.path.insert(0, "pytorch")
import attnlab_ops as ops
ops.load("build-torch")
layout = ops.varlen_layout([128, 64], -1)
g = torch.Generator(device="cuda").manual_seed(3)
mk = lambda h: torch.randn((192, h, 128), generator=g, device="cuda").bfloat16()
q, k, v = mk(4), mk(4), mk(4)
cases = {"shape": (q[:100], k[:100], v[:100]), "float": (q.float(), k, v), "half": (q, k.half(), v),
         "strided": (q.transpose(0, 1).contiguous().transpose(0, 1), k, v), "kv": (q, k[:, :3], v[:, :3])}
name = sys.argv[1]
try:
    if name == "handle":
        torch.ops.attnlab.flash_forward(q, k, v, 10**6, 0.0)
    elif name == "raw-kv":
        torch.ops.attnlab.flash_forward(q, k[:, :3].contiguous(), v[:, :3].contiguous(), layout.handle, 0.0)
    else:
        ops.attention(*cases[name], layout)
    print(name, "no error")
except Exception as e:
    print(name, "raised", type(e).__name__, str(e).splitlines()[0][:200])
PY
for c in shape float half strided kv handle raw-kv; do timeout 60 python3 /tmp/case.py $c 2>&1 | grep -v Warning | tail -6; echo "-- exit $? ($c)"; done
