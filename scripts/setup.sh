#!/usr/bin/env bash
# Installs what fpforge needs beyond the base image: clang-14 (the C/C++ frontend),
# the LLVM 14 tools, the C and C++ compilers the build scripts use (the exec crate's long
# double shims, CaDiCaL in the solver), the C libraries some crates build against (libz3 and libclang
# for the z3 crate that differential solver tests use), and the tools tests open
# fpforge's output files with (gcc, lcov's genhtml, headless chromium), and Csmith, whose
# random programs a differential test runs; f2c (the Fortran 77 route of crates/lower) and
# gfortran (the native reference of the Fortran tests and benchmark). Idempotent and quick
# when everything is present. Run as root (or with sudo available).
set -euo pipefail

packages=(clang-14 libclang1-14 llvm-14 llvm-14-dev libz3-dev m4 gcc g++ lcov chromium csmith libcsmith-dev f2c gfortran)
missing=()
for pkg in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

for tool in clang-14 opt-14 llvm-link-14 llvm-dis-14 f2c gfortran; do
  command -v "$tool" >/dev/null || { echo "setup: $tool not found after install" >&2; exit 1; }
done
command -v cargo >/dev/null || { echo "setup: cargo not found; install Rust (rustup) first" >&2; exit 1; }
