#!/usr/bin/env bash
# Sets up, builds fpforge, and runs it on the bundled example: lists the branch and op
# sites of a small fdlibm-style function, runs it on a few inputs, and generates inputs
# covering every branch.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
cargo build --release -q -p fpforge-cli
fpforge=target/release/fpforge
example=examples/ieee_classify.c
set -x
"$fpforge" sites "$example" -f classify
"$fpforge" run "$example" -f classify 0x1p-1030
"$fpforge" run "$example" -f classify -- -inf
"$fpforge" run "$example" -f scaled_norm '[3, 4, 0x1p-1074]' 3
"$fpforge" cover "$example" -f classify --seed 1 --evals 60000 --out target/demo-out
