#!/usr/bin/env bash
# Machine instructions per call (noise-free on a loaded machine) of the five musl
# functions of the speed benchmark, compiled (the default) and in the interpreter alone,
# counted by cachegrind: the difference of two runs of crates/exec/examples/evalrate.rs
# (N1 and N2 calls) divided by N2 - N1, so the one-time compilation cancels out.
#
#   bench/musl/instr.sh [FUNC...]        # default: tanh exp log1p atan2 fmod
#
# Needs valgrind and the musl source package that bench/musl/run.sh fetches.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
cache="${FPFORGE_CORPUS_CACHE:-$HOME/.cache/fpforge-corpus}"
musl="$(find "$cache" -maxdepth 1 -type d -name 'musl-*' | sort | tail -n 1)"
[ -n "$musl" ] || { echo "no musl source under $cache: run bench/musl/run.sh first" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "valgrind is missing" >&2; exit 1; }
n1="${N1:-500}"
n2="${N2:-2500}"

build="$(mktemp -d)"
trap 'rm -rf "$build"' EXIT
mkdir -p "$build/obj/include/bits"
sed -f "$musl/tools/mkalltypes.sed" "$musl/arch/x86_64/bits/alltypes.h.in" \
    "$musl/include/alltypes.h.in" >"$build/obj/include/bits/alltypes.h"
flags=(-std=c99 -ffreestanding -nostdinc -fno-strict-aliasing -w -D_XOPEN_SOURCE=700
    "-I$musl/arch/x86_64" "-I$musl/arch/generic" "-I$build/obj/src/internal"
    "-I$musl/src/include" "-I$musl/src/internal" "-I$build/obj/include" "-I$musl/include")

cd "$repo"
cargo build --release -q -p fpforge-exec --example evalrate
bin="$repo/target/release/examples/evalrate"

count() { # FUNC CALLS FILES... -> total instructions (EVALRATE_COMPILE passes through)
    valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
        "$bin" "$1" "$2" "${@:3}" -- "${flags[@]}" 2>&1 | awk '/I *refs/ { gsub(",", "", $NF); print $NF }'
}

per_call() { # FUNC FILES... -> instructions per call
    local a b
    a="$(count "$1" "$n1" "${@:2}")"
    b="$(count "$1" "$n2" "${@:2}")"
    echo $(((b - a) / (n2 - n1)))
}

echo "| function | IR steps/call | instructions/call, compiled | interpreter alone |"
echo "|---|---:|---:|---:|"
for f in "${@:-tanh exp log1p atan2 fmod}"; do
    for g in $f; do
        s="$musl/src/math"
        case $g in
        exp) files=("$s/exp.c" "$s/exp_data.c" "$s/__math_oflow.c" "$s/__math_uflow.c" "$s/__math_xflow.c") ;;
        tanh) files=("$s/tanh.c" "$s/expm1.c") ;;
        atan2) files=("$s/atan2.c" "$s/atan.c") ;;
        *) files=("$s/$g.c") ;;
        esac
        compiled="$(per_call "$g" "${files[@]}")"
        alone="$(EVALRATE_COMPILE=0 per_call "$g" "${files[@]}")"
        steps="$("$bin" "$g" "$n1" "${files[@]}" -- "${flags[@]}" | sed -E 's/.* ([0-9.]+) steps\/call.*/\1/')"
        echo "| $g | $steps | $compiled | $alone |"
    done
done
