#!/usr/bin/env bash
# Sets up and runs everything CI checks: formatting, the structure rules (no import cycle
# between a crate's modules, no function over 150 lines), clippy, docs and the test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
cargo fmt --all -- --check
python3 scripts/structure.py
cargo clippy --workspace --all-targets -q -- -D warnings
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps -q
cargo test --workspace
# The false-proof check of the library benchmarks, on a small C library of its own.
FPFORGE=target/debug/fpforge python3 bench/libs/test_replay.py
