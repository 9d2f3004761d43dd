#!/usr/bin/env bash
# Installs the Debian bookworm packages attnlab needs (once) and builds it into build/.
# CUDA comes from the NVIDIA toolkit at /usr/local/cuda when present; without it
# everything but the GPU kernels builds.
set -euo pipefail
cd "$(dirname "$0")"

packages=(cmake ninja-build g++ pkg-config
          libgtest-dev libbenchmark-dev libtomlplusplus-dev libcli11-dev libstb-dev
          libimgui-dev libglfw3-dev libgl-dev xvfb xauth)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build build -j"$(nproc)"
