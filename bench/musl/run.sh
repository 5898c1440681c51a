#!/usr/bin/env bash
# Runs every musl src/math function that takes only double/float/int arguments through
# the fpforge interpreter and against a native build of the same bitcode, then measures
# interpreter vs native speed on five functions. Prints both tables.
#
#   bench/musl/run.sh            # differential table + speed table
#   bench/musl/run.sh --quick    # fewer inputs and a shorter benchmark
#
# musl's source package is fetched with `apt-get source` into ~/.cache/fpforge-corpus
# (never into the repository). Needs root (or sudo) for the deb-src entry.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi

musl_dir="$("$repo/bench/source.sh" musl)"
echo "musl source: $musl_dir" >&2

command -v clang-14 >/dev/null || $sudo apt-get install -y -qq clang-14

cd "$repo"
cargo build --release -q -p fpforge-difftest --bin musl-diff
exec "$repo/target/release/musl-diff" --musl "$musl_dir" "$@"
