#!/usr/bin/env bash
# Fetches a Debian bookworm source package into the corpus cache outside the repository
# (~/.cache/fpforge-corpus, or $FPFORGE_CORPUS_CACHE) unless it is already unpacked there,
# and prints its directory. Adds a deb-src entry for bookworm main when there is none
# (needs root or sudo). Used by the benchmark scripts; third-party code never enters the
# repository.
#
#   bench/source.sh musl      # -> /root/.cache/fpforge-corpus/musl-1.2.3
set -euo pipefail

pkg="${1:?usage: bench/source.sh PACKAGE}"
cache="${FPFORGE_CORPUS_CACHE:-$HOME/.cache/fpforge-corpus}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi

unpacked() { find "$cache" -maxdepth 1 -type d -name "$pkg-*" 2>/dev/null | sort | tail -n 1 || true; }

dir="$(unpacked)"
if [ -z "$dir" ]; then
    if ! grep -rqs '^deb-src .*debian.* bookworm main' /etc/apt/sources.list /etc/apt/sources.list.d/ &&
        ! grep -rqs '^Types:.*deb-src' /etc/apt/sources.list.d/; then
        # The image's debian.sources names a Signed-By keyring; a deb-src line for the
        # same URI must name the same one or apt refuses both.
        echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm main" |
            $sudo tee /etc/apt/sources.list.d/fpforge-src.list >/dev/null
    fi
    $sudo apt-get update -qq >&2
    command -v dpkg-source >/dev/null || $sudo apt-get install -y -qq dpkg-dev >&2
    mkdir -p "$cache"
    (cd "$cache" && apt-get source -qq "$pkg" >&2)
    dir="$(unpacked)"
    [ -n "$dir" ] || { echo "apt-get source $pkg left no $cache/$pkg-* directory" >&2; exit 1; }
fi
echo "$dir"
