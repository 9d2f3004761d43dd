#!/usr/bin/env bash
# The transfer stream at the highest priority, beside registered buffers and margins; then the
# twice longer document.
set -u
SETTINGS="reg urgent,reg,urgent,reg urgent m4,urgent m4 c4,default" bash .calls/cp-register.sh
SETTINGS="default,reg,reg urgent" ROUNDS=1 REPS=10 LONG=.calls/one-doc-131072.toml TAG=n4-zigzag-131072 bash .calls/cp-register.sh
tar czf $OUT/cp-urgent.tgz -C $OUT logs && rm -rf $OUT/logs
