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
cache="${FPFORGE_CORPUS_CACHE:-$HOME/.cache/fpforge-corpus}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi

musl_dir="$(find "$cache" -maxdepth 1 -type d -name 'musl-*' 2>/dev/null | sort | tail -n 1 || true)"
if [ -z "$musl_dir" ]; then
    src_list=/etc/apt/sources.list.d/fpforge-src.list
    if ! grep -rqs '^deb-src .*debian.* bookworm main' /etc/apt/sources.list /etc/apt/sources.list.d/ &&
        ! grep -rqs '^Types:.*deb-src' /etc/apt/sources.list.d/; then
        # The image's debian.sources names a Signed-By keyring; a deb-src line for the
        # same URI must name the same one or apt refuses both.
        echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm main" |
            $sudo tee "$src_list" >/dev/null
    fi
    $sudo apt-get update -qq
    command -v dpkg-source >/dev/null || $sudo apt-get install -y -qq dpkg-dev
    mkdir -p "$cache"
    (cd "$cache" && apt-get source -qq musl)
    musl_dir="$(find "$cache" -maxdepth 1 -type d -name 'musl-*' | sort | tail -n 1)"
fi
echo "musl source: $musl_dir" >&2

command -v clang-14 >/dev/null || $sudo apt-get install -y -qq clang-14

cd "$repo"
cargo build --release -q -p fpforge-difftest --bin musl-diff
exec "$repo/target/release/musl-diff" --musl "$musl_dir" "$@"
