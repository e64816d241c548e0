#!/usr/bin/env bash
# check.sh: FFTW's own test program (tests/bench.c, tests/fftw-bench.c and
# libbench2, from Debian's fftw3 source package) built unchanged against hfft's
# FFTW drop-in, and run on the problems FFTW's own generator makes
# (tests/check.pl -r, seeded), plus a few prime sizes: every complex and real
# problem is planned through the drop-in and verified by libbench2 (impulse,
# linearity and time and frequency shift tests: DFT properties, no reference).
# Prints, per configuration, the problems generated, planned, verified, refused
# and wrong with the largest error, where the verified ones ran, and one line
# per problem in WORK/results-*.txt; exits 1 unless every problem was planned
# and verified, or refused by a known gap of the library (--allow).
#
#   check.sh [options] CONFIG...        CONFIG: PREC:DEVICE[:BUDGET[:MODE]]
#     PREC d|f, DEVICE none|emulated|cuda, BUDGET e.g. 64KiB (- or empty: the
#     default), MODE measure (FFTW's default planning, as check.pl's) or estimate
#     --bin DIR        build tree (libhfft, src/fftw3/libhfftw3*) (required)
#     --src DIR        hfft source tree (default: two folders up)
#     --work DIR       where the FFTW sources, programs and logs go (default BIN/fftw3-check)
#     --count N        random geometries per configuration (check.pl -c; default 20)
#     --seed S         seed of check.pl's generator (default 1)
#     --primes LIST    the prime-size problems added to the generator's (default
#                      "of1009 ob1009 if7919 ib7919 or65537 ob65537")
#     --measure-primes LIST  those of MODE measure configurations (default: --primes;
#                      FFTW_MEASURE plans a long prime line for seconds)
#     --jobs J         problems run at once (default: cores)
#     --cc CC, --cflags FLAGS   compiler and extra flags for the test program
#     --libs DIR:DIR   where libhfftw3* and libhfft are (default BIN/src/fftw3:BIN)
#     --allow FILE     refusals to report but not fail on: known gaps of the library,
#                      one extended regular expression a line matched against hfft's
#                      message (# comments); every other refusal, wrong result or
#                      crash fails
# FFTW's sources: $HFFT_FFTW_SOURCE, else WORK/src, fetched there with
# `apt-get source fftw3` where deb-src lines are configured.  Without them the
# script prints "fftw3 check skipped: ..." and exits 0.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src=$(cd "$here/../.." && pwd)
bin="" work="" libs="" allow="" count=20 seed=1 primes="of1009 ob1009 if7919 ib7919 or65537 ob65537" mprimes=- jobs=$(nproc 2>/dev/null || echo 2) cc=${CC:-cc} cflags=""
configs=()
while [ $# -gt 0 ]; do
    case $1 in
    --bin) bin=$2; shift ;;
    --src) src=$2; shift ;;
    --work) work=$2; shift ;;
    --count) count=$2; shift ;;
    --seed) seed=$2; shift ;;
    --primes) primes=$2; shift ;;
    --measure-primes) mprimes=$2; shift ;;
    --jobs) jobs=$2; shift ;;
    --cc) cc=$2; shift ;;
    --cflags) cflags=$2; shift ;;
    --libs) libs=$2; shift ;;
    --allow) allow=$2; shift ;;
    -h|--help) sed -n '2,34p' "$0"; exit 0 ;;
    *) configs+=("$1") ;;
    esac
    shift
done
[ -n "$bin" ] || { echo "check.sh: --bin is required" >&2; exit 2; }
bin=$(cd "$bin" && pwd)
work=${work:-$bin/fftw3-check}
mkdir -p "$work"
[ ${#configs[@]} -gt 0 ] || configs=(d:none f:none d:emulated:64KiB f:emulated:64KiB)

skip() {
    echo "fftw3 check skipped: $*"
    exit 0
}

# ---- FFTW's sources ----
fftw=${HFFT_FFTW_SOURCE:-}
if [ -z "$fftw" ]; then
    fftw=$(ls -d "$work"/src/fftw3-3.* 2>/dev/null | head -n 1)
    if [ -z "$fftw" ]; then
        command -v apt-get >/dev/null || skip "no apt-get to fetch Debian's fftw3 source package (set HFFT_FFTW_SOURCE to an unpacked FFTW 3.3 source tree)"
        command -v dpkg-source >/dev/null || skip "dpkg-source (package dpkg-dev) is needed to unpack the fftw3 source package"
        mkdir -p "$work/src"
        if ! (cd "$work/src" && apt-get source -qq fftw3 >"$work/src/apt-get.log" 2>&1); then
            skip "apt-get source fftw3 failed ($(grep -m1 '^E:' "$work/src/apt-get.log" || tail -n 1 "$work/src/apt-get.log")); enable the deb-src lines of /etc/apt/sources.list.d/debian.sources (Types: deb deb-src) and run apt-get update, or set HFFT_FFTW_SOURCE"
        fi
        fftw=$(ls -d "$work"/src/fftw3-3.* 2>/dev/null | head -n 1)
    fi
fi
[ -n "$fftw" ] && [ -f "$fftw/tests/bench.c" ] && [ -f "$fftw/libbench2/verify.c" ] ||
    skip "no FFTW test sources (tests/bench.c, libbench2/) under '${fftw:-}'"
echo "FFTW sources: $fftw"

# ---- the test program, once per precision, against the drop-in ----
dropin_inc=$src/include/hfft/fftw3
shim=$work/include
mkdir -p "$shim/api"
# fftw-bench.h includes "api/fftw3.h" (FFTW's own header in its tree): the drop-in's instead.
ln -sf "$dropin_inc/fftw3.h" "$shim/api/fftw3.h"
cp "$here/config.h" "$shim/config.h"
IFS=: read -r -a libdirs <<<"${libs:-$bin/src/fftw3:$bin}"
build_bench() {
    local prec=$1 lib=hfftw3 def=""
    [ "$prec" = f ] && { lib=hfftw3f; def=-DBENCHFFT_SINGLE; }
    local out=$work/$prec
    mkdir -p "$out"
    local flags=(-O2 -w $def $cflags -I"$shim" -I"$here" -I"$fftw" -I"$dropin_inc" -I"$src/include")
    local objs=() f o
    for f in "$fftw"/libbench2/*.c; do
        o=$out/$(basename "$f" .c).o
        "$cc" "${flags[@]}" -c "$f" -o "$o" || return 1
        objs+=("$o")
    done
    rm -f "$out/libbench2.a"
    ar rcs "$out/libbench2.a" "${objs[@]}" || return 1
    "$cc" "${flags[@]}" -c "$fftw/tests/bench.c" -o "$out/bench.o" &&
        "$cc" "${flags[@]}" -c "$fftw/tests/fftw-bench.c" -o "$out/fftw-bench.o" &&
        "$cc" "${flags[@]}" -c "$here/hook.c" -o "$out/hook.o" &&
        "$cc" $cflags -o "$out/bench" "$out/bench.o" "$out/fftw-bench.o" "$out/hook.o" \
            "$out/libbench2.a" "${libdirs[@]/#/-L}" -l$lib -lhfft -lm \
            -Wl,-rpath,"$(IFS=:; echo "${libdirs[*]}")"
}
for prec in d f; do
    if ! build_bench $prec >"$work/build-$prec.log" 2>&1; then
        cat "$work/build-$prec.log"
        echo "FAILED: building FFTW's test program against the drop-in ($prec)" >&2
        exit 1
    fi
done
echo "test programs: $work/d/bench $work/f/bench ($("$work/d/bench" --info version 2>/dev/null))"

# ---- the problems: check.pl's own generator, seeded, with a recorder as its program ----
problems=$work/problems-$seed-$count.txt
cat >"$work/record" <<EOF
#!/bin/sh
# check.pl's program: writes the problems it is given, one a line.
while [ \$# -gt 0 ]; do [ "\$1" = --verify ] && { shift; printf '%s\n' "\$1"; }; shift; done >>"$problems.tmp"
EOF
chmod +x "$work/record"
rm -f "$problems.tmp"
perl -w -e '$seed = shift @ARGV; srand($seed); $check = shift @ARGV; do $check; die $@ if $@;' \
    "$seed" "$fftw/tests/check.pl" -r -c="$count" "$work/record" >/dev/null ||
    { echo "FAILED: check.pl's generator" >&2; exit 1; }
# r2r problems ([io]k...) included: FFTW's real-to-real transforms
mv "$problems.tmp" "$problems"
nr2r=$(grep -c '^[io]k' "$problems")
# Prime sizes, which check.pl's generator (factors up to 13) never makes; the
# measure configurations' own list beside.
[ "$mprimes" = - ] && mprimes=$primes
cp "$problems" "$problems.measure"
for p in $mprimes; do printf '%s\n' "$p" >>"$problems.measure"; done
for p in $primes; do printf '%s\n' "$p" >>"$problems"; done
echo "problems: $(wc -l <"$problems.measure") (measure) and $(wc -l <"$problems") (estimate)" \
     "from $count random geometries of check.pl -r (seed $seed) and the prime sizes" \
     "'$mprimes' (measure) and '$primes' (estimate); $nr2r of them r2r"

# ---- one problem, verified; one result line: what, problem, max error, where or why ----
run_one() {
    local prog=$1 opts=$2 p=$3 out err rc line e where
    out=$(mktemp) err=$(mktemp)
    timeout 600 "$prog" $opts -v2 --verify "$p" >"$out" 2>"$err"
    rc=$?
    line=$(grep -F -- "$p " "$out" | tail -n 1)
    where=$(grep -m1 '^(hfft' "$out" | sed -E 's/.* device=([^ ]+) placement=([^ ]+) schedule=([^ ]+).*/\1\/\2\/\3/')
    if [ $rc -eq 0 ] && [ -n "$line" ]; then
        e=$(echo "$line" | awk '{ m = $2; if ($3 > m) m = $3; if ($4 > m) m = $4; printf "%.3g", m }')
        echo "verified $p $e ${where:-?}"
    elif grep -q -e 'No can_do' -e 'assertion failed: the_plan' "$err"; then
        echo "refused $p - $(grep -m1 '^hfft: ' "$err" | tr '\t' ' ')"
    elif grep -q 'Found relative error' "$err"; then
        echo "wrong $p - ${where:-?} $(grep -m1 'Found relative error' "$err")"
    elif grep -q 'assertion failed: !isnan(e)' "$err"; then
        echo "wrong $p - ${where:-?} NaN in the output (libbench2: assertion failed: !isnan(e))"
    else
        echo "failed $p - ${where:-?} rc=$rc $(grep -m1 -e '^hfftw: ' -e 'assertion' -e '^hfft: ' "$err" | tr '\t' ' ')"
    fi
    rm -f "$out" "$err"
}
export -f run_one

status=0
summary=()
for cfg in "${configs[@]}"; do
    IFS=: read -r prec device budget mode <<<"$cfg"
    mode=${mode:-measure}
    [ "$budget" = - ] && budget=""
    opts=""
    [ "$mode" = estimate ] && opts="-o estimate"
    label="$prec:$device${budget:+:$budget}:$mode"
    log=$work/results-${label//:/-}.txt
    start=$SECONDS
    (
        export HFFT_DEVICE=$device HFFT_WISDOM=none
        if [ -n "$budget" ]; then export HFFT_DEVICE_MEMORY=$budget; else unset HFFT_DEVICE_MEMORY; fi
        list=$problems
        [ "$mode" != estimate ] && list=$problems.measure # FFTW_MEASURE planning
        tr '\n' '\0' <"$list" |
            xargs -0 -P "$jobs" -I{} bash -c 'run_one "$@"' _ "$work/$prec/bench" "$opts" {}
    ) >"$log"
    n=$(wc -l <"$log")
    ver=$(grep -c '^verified ' "$log")
    ref=$(grep -c '^refused ' "$log")
    wro=$(grep -c '^wrong ' "$log")
    fai=$(grep -c '^failed ' "$log")
    known=0
    if [ -n "$allow" ] && [ "$ref" -gt 0 ]; then
        known=$(grep '^refused ' "$log" | grep -c -E -f <(grep -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' "$allow"))
    fi
    maxe=$(awk '$1 == "verified" && $3 > m { m = $3 } END { printf "%.3g", m + 0 }' "$log")
    places=$(awk '$1 == "verified" { c[$4]++ } END { for (k in c) printf "%s %d, ", k, c[k] }' "$log")
    line=$(printf '%-28s problems %4d  planned %4d  verified %4d  refused %3d (%3d known)  wrong %3d  failed %3d  max error %-9s %4ds' \
        "$label" "$n" $((n - ref)) "$ver" "$ref" "$known" "$wro" "$fai" "$maxe" $((SECONDS - start)))
    summary+=("$line")
    echo "$line"
    echo "    where they ran (device/placement/schedule): ${places%, }"
    if [ "$ver" -ne "$n" ]; then
        [ $((n - ver - known)) -gt 0 ] && status=1
        grep -v '^verified ' "$log" | head -n 20 | sed 's/^/    /'
    fi
    echo "    each problem: $log"
done
echo
echo "==== FFTW's tests through the drop-in (tolerance: libbench2's, 1e-3 single, 1e-10 double)"
printf '%s\n' "${summary[@]}"
[ -n "$allow" ] && echo "known: refusals matching $allow (gaps of the library, not of the drop-in)"
[ $status -eq 0 ] && echo "PASSED: no wrong result, no failure, no refusal outside the known gaps" ||
    echo "FAILED: a wrong result, a failure or an unexpected refusal (listed above)"
exit $status
