#!/usr/bin/env bash
# Installs snarkd's build and test dependencies on Debian 12 (apt) and the npm packages the
# tests compare against. Safe to run repeatedly.
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

packages=(build-essential cmake ninja-build pkg-config git python3
          libgtest-dev libgmock-dev libbenchmark-dev libgmp-dev
          nlohmann-json3-dev libcli11-dev
          libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc
          libtomlplusplus-dev libcpp-httplib-dev libssl-dev libsodium-dev curl)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
# Node.js runs the @noble/curves cross-checks; keep an existing (newer) node if there is one.
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)
if [ "${#missing[@]}" -gt 0 ]; then
  echo "installing: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if [ "${1:-}" = "--with-npm" ]; then
  # Exact versions are pinned in tests/js/package.json; no lock file is kept.
  (cd tests/js && npm install --no-package-lock --no-audit --no-fund --loglevel=error)
fi
