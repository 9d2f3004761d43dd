"""attnlab's flash attention in PyTorch: forward and backward with autograd, on varlen
documents or packed rows, with a sliding window and grouped-query attention, bf16 or fp16.

    from attnlab import ops
    ops.load("build-torch")                     # compiles pytorch/attnlab_torch.cpp once
    layout = ops.varlen_layout([512, 300, 212], window_left=128)
    out = ops.attention(q, k, v, layout)        # q (tokens, heads, dim), k, v (tokens, kv_heads, dim)

The operators are torch.ops.attnlab.flash_forward and flash_backward (pytorch/attnlab_torch.cpp),
with fake (shape-only) functions so torch.compile(fullgraph=True) traces through them. They run
on PyTorch's current stream. The binding and the headers it includes are read from the source
tree the CMake build was configured from (its CMakeCache.txt), so an installed package builds
against the very libraries it links.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path

try:
    import torch
except ImportError:  # extension_inputs needs no torch; load() and the operators do
    torch = None

_module = None


@dataclass(frozen=True)
class ExtensionInputs:
    """What torch.utils.cpp_extension needs to build the binding against one CMake build."""

    name: str  # names the build's libraries: a rebuilt library gets a fresh extension
    source: Path  # pytorch/attnlab_torch.cpp of the build's source tree
    include: Path  # the source tree (the binding includes "kernels/...", "core/...")
    archives: list[str]  # every libattnlab_*.a of the build
    out: Path  # where the extension is built, inside the build


def _cache_entry(cache: str, key: str) -> str | None:
    # -D without a type caches it as UNINITIALIZED: any type will do.
    found = re.search(rf"^{re.escape(key)}:[A-Z]+=(.*)$", cache, re.M)
    return found.group(1) if found else None


def extension_inputs(build_dir: str | os.PathLike) -> ExtensionInputs:
    """The binding's source, include folder and libraries for a CMake build of position-independent
    code (every build unless configured otherwise); a build that cannot serve is a RuntimeError
    naming it and what it lacks."""
    build = Path(build_dir).resolve()
    cache_file = build / "CMakeCache.txt"
    cache = cache_file.read_text() if cache_file.is_file() else ""
    if _cache_entry(cache, "CMAKE_POSITION_INDEPENDENT_CODE") != "ON":
        raise RuntimeError(
            f"{build}: not a CMake build of position-independent code (CMAKE_POSITION_INDEPENDENT_CODE=ON) "
            "(the extension links its static libraries into a shared object)"
        )
    source_tree = _cache_entry(cache, "CMAKE_HOME_DIRECTORY")
    source = Path(source_tree or "") / "pytorch" / "attnlab_torch.cpp"
    if not source_tree or not source.is_file():
        raise RuntimeError(f"{build}: its source tree ({source_tree or 'not in CMakeCache.txt'}) has no {source.name}")
    # Every attnlab library of the build, in one group: the linker takes from each only what
    # the binding reaches, whichever folder of the build a library lives in.
    archives = sorted(str(a) for a in build.rglob("libattnlab_*.a"))
    if not any(a.endswith("libattnlab_kernels.a") for a in archives):
        raise RuntimeError(f"{build}: no libattnlab_kernels.a; build the attnlab_kernels target first")
    # PyTorch rebuilds an extension when its sources change, not the libraries it links: the
    # libraries' identity names the build, so a rebuilt library gets a fresh extension.
    stamp = hashlib.sha1("".join(f"{a}:{os.stat(a).st_size}:{os.stat(a).st_mtime_ns};" for a in archives).encode())
    name = f"attnlab_torch_{stamp.hexdigest()[:12]}"
    return ExtensionInputs(name, source, Path(source_tree), archives, build / "torch-extension" / name)


def load(build_dir: str | os.PathLike, verbose: bool = False):
    """Builds (or reuses) the extension from the static libraries of a CMake build (extension_inputs),
    loads it and returns the module."""
    global _module
    if _module is not None:
        return _module
    from torch.utils.cpp_extension import load as load_extension

    inputs = extension_inputs(build_dir)
    inputs.out.mkdir(parents=True, exist_ok=True)
    # The CUDA runtime is PyTorch's shared one (-lcudart from with_cuda), not the static one the
    # CMake targets link, so that both see one current device and one set of streams.
    _module = load_extension(
        name=inputs.name,
        sources=[str(inputs.source)],
        extra_include_paths=[str(inputs.include)],
        extra_cflags=["-O2", "-std=c++20"],
        extra_ldflags=["-Wl,--start-group", *inputs.archives, "-Wl,--end-group", "-lcublas", "-ldl"],
        with_cuda=True,
        build_directory=str(inputs.out),
        verbose=verbose,
    )
    _register_python_side()
    return _module


def _register_python_side():
    @torch.library.register_fake("attnlab::flash_forward")
    def _(q, k, v, layout, scale=None):
        return torch.empty_like(q), q.new_empty((q.shape[0], q.shape[1]), dtype=torch.float32)

    @torch.library.register_fake("attnlab::flash_backward")
    def _(grad_out, q, k, v, out, lse, layout, scale=None):
        return torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)

    def setup_context(ctx, inputs, output):
        q, k, v, layout, scale = inputs
        out, lse = output
        ctx.save_for_backward(q, k, v, out, lse)
        ctx.layout, ctx.scale = layout, scale

    def backward(ctx, grad_out, grad_lse):
        q, k, v, out, lse = ctx.saved_tensors
        dq, dk, dv = torch.ops.attnlab.flash_backward(grad_out, q, k, v, out, lse, ctx.layout, ctx.scale)
        return dq, dk, dv, None, None

    torch.library.register_autograd("attnlab::flash_forward", backward, setup_context=setup_context)


def module():
    if _module is None:
        raise RuntimeError("attnlab.ops.load(BUILD_DIR) first")
    return _module


@dataclass(frozen=True)
class Layout:
    """A registered layout: `handle` names it to the operators; `positions` is the tokens
    q, k and v hold; `kernel` is the flash kernel that runs it (e.g. wgmma-sm90)."""

    handle: int
    positions: int
    kernel: str
    window_left: int


def varlen_layout(lengths: list[int], window_left: int = -1, kernel: str = "") -> Layout:
    """Documents of `lengths` tokens in one buffer (cu_seqlens order), causal inside each,
    each query at most `window_left` keys back (-1: no window), as varlen_attn's window_size=(left, 0)."""
    m = module()
    handle = m.make_layout([int(n) for n in lengths], int(window_left), kernel)
    return Layout(handle, m.layout_positions(handle), m.layout_kernel(handle), int(window_left))


def layout_from_cu_seqlens(cu_seqlens: torch.Tensor, window_left: int = -1, kernel: str = "") -> Layout:
    """The same from FlashAttention's cu_seqlens (read to the host once: build layouts outside the step)."""
    starts = cu_seqlens.tolist()
    return varlen_layout([b - a for a, b in zip(starts, starts[1:])], window_left, kernel)


def packed_rows_layout(rows: int, row_len: int, window_left: int = -1, kernel: str = "") -> Layout:
    """Packed rows: a (rows * row_len) buffer, causal over each row whatever documents it
    holds (tokens see earlier documents of their row), each query at most `window_left` back."""
    return varlen_layout([row_len] * rows, window_left, kernel)


def attention(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, layout: Layout, scale: float | None = None
) -> torch.Tensor:
    """Causal attention of q (positions, heads, head_dim) over k, v (positions, kv_heads, head_dim)
    in `layout`'s buffer order, on PyTorch's current stream; scale None means 1/sqrt(head_dim).
    Differentiable in q, k and v."""
    out, _ = torch.ops.attnlab.flash_forward(q, k, v, layout.handle, None if scale is None else float(scale))
    return out
