#!/usr/bin/env bash
# tune_check.sh TUNE WORKDIR: hfft-tune on the emulated device, end to end:
# a 2D problem out of place and a 3D one in place at a 1 MiB budget.  It must
# exit 0, print its summary table with both problems, and write wisdom with a
# problem line for each (their sizes, placement and budget as asked).  Timings
# on the emulated device mean nothing; what this checks is that the tool runs
# its steps and records what it chose.
set -uo pipefail
tune=${1:?usage: tune_check.sh TUNE WORKDIR}
work=${2:?usage: tune_check.sh TUNE WORKDIR}
mkdir -p "$work"
fail() { echo "tune_check: $*" >&2; exit 1; }
# check NAME SHAPE INPLACE ARGS...: tune ARGS into WORK/wisdom-NAME; SHAPE as the
# summary and the wisdom write it (256x512), INPLACE as the wisdom does (0 or 1)
check() {
    local name=$1 shape=$2 inplace=$3 w=$work/wisdom-$1 out
    shift 3
    rm -f "$w"
    out=$(HFFT_DEVICE=emulated "$tune" --budget 1MiB --reps 1 --quiet --wisdom "$w" "$@" 2>&1) ||
        { echo "$out"; fail "hfft-tune $* exited with an error"; }
    echo "$out"
    grep -q "^summary" <<<"$out" || fail "no summary table for $name"
    grep -Eq "^  [23]d ${shape} " <<<"$out" || fail "the summary has no row for $shape"
    grep -Eq "^problem .*n=${shape} inplace=${inplace} budget=1048576 " "$w" ||
        fail "no wisdom line for $shape (inplace=$inplace) in $w: $(cat "$w")"
}
check 2d 256x512 0 --out-of-place 2d:256x512:f32
check 3d 16x32x64 1 3d:16x32x64:f64
echo "tune_check: passed"
