#!/usr/bin/env bash
# Installs what thunky needs on Debian 12, and nothing that is already there.
# Safe to run again; needs root (or sudo) only when something is missing.
set -euo pipefail

packages=(
  cmake ninja-build clang python3
  pkg-config  # scripts/check-install.sh builds against the installed thunky.pc
  lld  # links thunky-translate against MLIR's and LLVM's static archives
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools
  protobuf-c-compiler libprotobuf-c-dev protobuf-compiler
  libsnappy-dev libzstd-dev zlib1g-dev libbrotli-dev
  libhighwayhash-dev  # only to check thunky's own HighwayHash against
  gnuplot-nox  # bench/run's plot
  librsvg2-bin  # rsvg-convert: test/Schedule renders the model's SVG to PNG
  libclang-rt-dev  # ASan, UBSan and libFuzzer's runtimes
  valgrind  # scripts/leak-check.sh
  llvm-14  # llvm-cov and llvm-profdata of clang's version: scripts/cuda-coverage.sh
  python3-numpy python3-venv python3-pip python3-setuptools  # the Python package (docs/python.md)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages present"
  exit 0
fi

echo "setup: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "setup: done"
