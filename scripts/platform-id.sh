#!/usr/bin/env bash
# Prints this host's platform id: arch-cpu-model-Ncores-hash, overridable with
# TC_PLATFORM_ID (TC_PLATFORM, its older name, still works).
set -euo pipefail
override=${TC_PLATFORM_ID:-${TC_PLATFORM:-}}
if [ -n "$override" ]; then echo "$override"; exit 0; fi
arch=$(uname -m)
model=$(grep -m1 -E '^(model name|CPU part)' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
cores=$(nproc)
slug=$(echo "$model" | tr '[:upper:]' '[:lower:]' | sed -e 's/(r)//g; s/(tm)//g; s/cpu//g; s/processor//g; s/@.*//' \
       -e 's/[^a-z0-9]\+/-/g; s/^-//; s/-$//' | cut -c1-32)
hash=$( { echo "$model"; grep -m1 -E '^flags|^Features' /proc/cpuinfo; echo "$cores"; } | cksum | cut -d' ' -f1)
printf '%s-%s-%sc-%08x\n' "$arch" "${slug:-unknown}" "$cores" "$hash"
