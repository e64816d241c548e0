#!/usr/bin/env bash
# tune_check.sh TUNE WORKDIR: hfft-tune on the emulated device, end to end:
# a 2D problem out of place, a 3D one and a batch of 1D lines in place, real
# ones (r2c out of place, c2r in place), at a 1 MiB budget; with each wisdom
# file, FFTW's measured line plans beside it (WISDOM.fftw-f32 or -f64).  It must exit 0, print its summary table with each problem,
# and write wisdom with a problem line for each (their sizes, the batch's
# count, placement and budget as asked).  Timings
# on the emulated device mean nothing; what this checks is that the tool runs
# its steps and records what it chose.
set -uo pipefail
tune=${1:?usage: tune_check.sh TUNE WORKDIR}
work=${2:?usage: tune_check.sh TUNE WORKDIR}
mkdir -p "$work"
fail() { echo "tune_check: $*" >&2; exit 1; }
# check NAME ROW SHAPE INPLACE ARGS...: tune ARGS into WORK/wisdom-NAME; ROW the
# summary's problem as it names it ("2d 256x512 f32"), SHAPE the wisdom's
# ("n=256x512", "n=4096 howmany=128"), INPLACE as the wisdom writes it (0 or 1)
check() {
    local name=$1 row=$2 shape=$3 inplace=$4 w=$work/wisdom-$1 out
    shift 4
    rm -f "$w"
    out=$(HFFT_DEVICE=emulated "$tune" --budget 1MiB --reps 1 --quiet --wisdom "$w" "$@" 2>&1) ||
        { echo "$out"; fail "hfft-tune $* exited with an error"; }
    echo "$out"
    grep -q "^summary" <<<"$out" || fail "no summary table for $name"
    grep -q "^  ${row} " <<<"$out" || fail "the summary has no row for $row"
    grep -Eq "^problem .*${shape} inplace=${inplace} budget=1048576 " "$w" ||
        fail "no wisdom line for $shape (inplace=$inplace) in $w: $(cat "$w")"
    # FFTW's measured line plans beside it, of the problem's precision
    local fw=$w.fftw-f32
    [[ $* =~ (f64|r64) ]] && fw=$w.fftw-f64
    [ "$(head -c 7 "$fw" 2>/dev/null)" = "(fftw-3" ] || fail "no FFTW wisdom in $fw"
}
check 2d "2d 256x512 f32" n=256x512 0 --out-of-place 2d:256x512:f32
check 3d "3d 16x32x64 f64" n=16x32x64 1 3d:16x32x64:f64
check batch "1d 4096 f32 x 128" "n=4096 howmany=128" 1 1d:4096:f32:b128
check r2c "2d 256x512 r32" "n=256x512 kind=r2c" 0 --out-of-place 2d:256x512:r32
check c2r "2d 128x256 c2r64" "n=128x256 kind=c2r" 1 2d:128x256:c2r64
# --wisdom none (what plans read as no wisdom) is refused, and nothing is written
mkdir -p "$work/none" && rm -rf "${work:?}/none/"*
(cd "$work/none" && HFFT_DEVICE=emulated "$tune" --budget 1MiB --reps 1 --quiet --wisdom none \
    2d:64x64:f32 >/dev/null 2>&1)
[ $? -eq 2 ] || fail "hfft-tune --wisdom none was not refused with status 2"
[ -z "$(ls -A "$work/none")" ] || fail "hfft-tune --wisdom none wrote $(ls -A "$work/none")"
# a kind it does not know is refused before anything runs
HFFT_DEVICE=emulated "$tune" --quiet --wisdom "$work/wisdom-bad" 2d:64x64:r16 >/dev/null 2>&1
[ $? -eq 2 ] || fail "2d:64x64:r16 was not refused with status 2"
echo "tune_check: passed"
