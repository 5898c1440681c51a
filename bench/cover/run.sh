#!/usr/bin/env bash
# Branch coverage of musl's src/math, measured by gcov: `fpforge cover` against random
# testing and AFL++, each given ten times fpforge's wall-clock time (see run.py).
# Prints a markdown table (recorded in docs/BENCHMARKS.md).
#
#   bench/cover/run.sh                 # every double function of musl src/math
#   bench/cover/run.sh --quick         # a handful of functions, peers capped at 3 s
#   bench/cover/run.sh --all           # float functions too
#   bench/cover/run.sh --ablate --no-peers   # fpforge with each improvement off
#   bench/cover/run.sh --only cos,fmod --json rows.json
#
# musl's source package is fetched with `apt-get source` into ~/.cache/fpforge-corpus
# (never into the repository); clang-14, gcc/gcov and afl++ are installed when missing
# (root or sudo needed for that).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
cache="${FPFORGE_CORPUS_CACHE:-$HOME/.cache/fpforge-corpus}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi

musl_dir="$("$repo/bench/source.sh" musl)"
echo "musl source: $musl_dir" >&2

command -v clang-14 >/dev/null || $sudo apt-get install -y -qq clang-14
command -v gcov >/dev/null || $sudo apt-get install -y -qq gcc
command -v afl-fuzz >/dev/null || $sudo apt-get install -y -qq afl++

cd "$repo"
cargo build --release -q -p fpforge-cli
echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores" >&2
exec python3 "$here/run.py" --musl "$musl_dir" --build "$cache/build/cover" "$@"
