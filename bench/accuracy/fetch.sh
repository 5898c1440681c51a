#!/usr/bin/env bash
# Fetches the third-party libraries of the accuracy corpus (programs.tsv) and prepares
# them for compilation, idempotently:
#   - adds a deb-src entry for bookworm main if there is none (needs root or sudo),
#   - `apt-get source meschach gsl` into ~/.cache/fpforge-corpus (skipped when unpacked),
#   - meschach: runs its configure (basic version: dense routines only, no sparse or
#     complex types) so machine.h describes this machine (the package ships a machine.h
#     generated on a big-endian system that `#define`s const away),
#   - gsl: runs its configure for config.h, and links the public headers into gsl/
#     (`make -C gsl`, what GSL's own build does first).
# Nothing fetched goes into the repository.
#
#   bench/accuracy/fetch.sh            # prints the corpus directory when done
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"

cache="${FPFORGE_CORPUS_CACHE:-$HOME/.cache/fpforge-corpus}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
mkdir -p "$cache"

command -v clang-14 >/dev/null || { $sudo apt-get update -qq && $sudo apt-get install -y -qq clang-14; }

meschach="$("$here/../source.sh" meschach)"
gsl="$("$here/../source.sh" gsl)"

# configure leaves config.status behind; its presence marks a prepared tree.
if [ ! -f "$meschach/config.status" ]; then
    echo "configuring $meschach" >&2
    (cd "$meschach" && CC=clang-14 ./configure >/dev/null 2>"$cache/meschach-configure.log") || {
        cat "$cache/meschach-configure.log" >&2
        exit 1
    }
fi
if [ ! -f "$gsl/config.status" ]; then
    echo "configuring $gsl (about 20 s)" >&2
    (cd "$gsl" && CC=clang-14 ./configure -q >/dev/null 2>"$cache/gsl-configure.log") || {
        cat "$cache/gsl-configure.log" >&2
        exit 1
    }
fi
if [ ! -e "$gsl/gsl/gsl_statistics_double.h" ]; then
    make -s -C "$gsl/gsl" >/dev/null
fi

echo "$cache"
