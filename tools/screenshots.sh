#!/usr/bin/env bash
# Renders every screenshot README.md and gui/README.md show (gui/screenshots/) from the GUI as
# built, headless under xvfb-run, so that the pictures match the code:
#   tools/screenshots.sh [BUILD_DIR]        # default build
set -euo pipefail
cd "$(dirname "$0")/.."
gui=${1:-build}/gui/attnlab-gui
out=gui/screenshots
shot() {
  local name=$1
  shift
  "$gui" --screenshot "$out/$name.png" "$@"
}
run() {
  for step in $(seq 1 10); do shot "story-$step" --story-step "$step" --size 1280x800; done
  shot scenario --view scenario --size 1280x800
  shot masks --view masks --scenario uniform-64x512 --mask-cells 2048 --size 1280x800
  shot masks-long-tail --view masks --scenario long-tail --size 1280x800
  shot masks-window --view masks --scenario web-mix-2048-window512 --size 1280x800
  shot masks-tooltip --view masks --scenario long-tail --mask-cells 96 --size 1280x800 --mouse 700,480
  shot masks-projector --view masks --scenario uniform-64x512 --mask-cells 2048 --text-scale 1.75 --size 1280x800
  shot costs --view costs --scenario uniform-64x512 --size 1600x1000
  shot costs-long-tail --view costs --scenario long-tail --size 1600x1000
  shot costs-backward --view costs --scenario one-doc-16384 --pass bwd --size 1600x1000
  shot timings --view timings --scenario uniform-64x512 --size 1280x800
  shot timings-long-tail --view timings --scenario long-tail --size 1280x800
  shot timings-backward --view timings --scenario uniform-64x512 --pass bwd --size 1280x800
  shot walkthrough --view walkthrough --scenario uniform-64x512 --size 1280x800
  shot step --view step --scenario nanochat-d24 --size 1280x800
  shot cp-long-tail --view cp --scenario long-tail --size 1280x800
  shot cp-web-mix-measured --view cp --scenario web-mix-2048 --results results/h100 --size 1600x900
}
# Without a display, the script runs itself again under a virtual one.
[ -n "${DISPLAY:-}" ] || exec xvfb-run -a -s "-screen 0 1920x1080x24" "$0" "$@"
run
