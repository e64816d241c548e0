#!/usr/bin/env bash
# bench/cpu-side.sh LOGDIR: the measurements of the CPU-side targets (issue 15)
# in one go, on a GPU host (16 cores, >= 64 GiB of memory) with hfft built in
# build/ (`cmake -S . -B build -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 && cmake
# --build build`).  Every log goes to LOGDIR; a summary of the lines that carry
# the figures ends the run and LOGDIR/summary.txt.  About 7 minutes:
#
#   00-machine     the link and the host memory bandwidth (hfft-bench --bandwidth)
#   10-cpu-fftw    CPU-only 2D 32768^2 and 3D 1024^3 f32 (8 GiB each) against
#                  FFTW ESTIMATE and MEASURE with 16 threads (one hfft-bench run:
#                  median of 2, in place unless CPU_SIDE_PLACE=out; cpu_mem:
#                  each round against the host memory)
#   11-cpu-measure the same hfft CPU-only plans under HFFT_MEASURE
#   20-tune        hfft-tune --budget 2GiB on both problems, into LOGDIR/wisdom
#   30-tuned       hfft-bench --wisdom: GPU-only against auto (the tuned split),
#                  their executes taking turns (--alternate), each printed (--each)
#   40-sweep-tune  hfft-tune on smaller sizes (the 2% target holds at any size)
#   41-sweep       GPU-only, CPU-only and auto at those sizes, taking turns, each
#                  execute printed
#   50-verify      errors of CPU-only and auto against FFTW in higher precision
#
# Settings in the environment (HFFT_THREADS, HFFT_DEVICE, ...) apply as usual;
# unset them for the default placement.  CPU_SIDE_BIG and CPU_SIDE_SMALL replace
# the problem lists (a smoke test elsewhere: HFFT_DEVICE=emulated with small ones);
# CPU_SIDE_PLACE=out tunes and times the out-of-place transforms (default: in
# place); CPU_SIDE_REPS sets the sweep's timed runs (default 3); CPU_SIDE_FFTW=0
# skips the FFTW and HFFT_MEASURE steps (10, 11: about half the run).
set -uo pipefail

if [ $# -ne 1 ]; then
    echo "usage: $0 LOGDIR" >&2
    exit 2
fi
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bench=$root/build/bench/hfft-bench
tune=$root/build/balancer/hfft-tune
for b in "$bench" "$tune"; do
    [ -x "$b" ] || { echo "$b not built (cmake --build build)" >&2; exit 1; }
done
log=$1
mkdir -p "$log"
log=$(cd "$log" && pwd)
wisdom=$log/wisdom
rm -f "$wisdom"
big=${CPU_SIDE_BIG:-"2d:32768x32768:f32 3d:1024x1024x1024:f32"}
small=${CPU_SIDE_SMALL:-"2d:4096x4096:f32 2d:8192x8192:f32 2d:16384x16384:f32 3d:256x256x256:f32 3d:512x512x512:f32"}
place=${CPU_SIDE_PLACE:-in}
case $place in
in) tune_place=(); bench_place=(--inplace) ;;
out) tune_place=(--out-of-place); bench_place=() ;;
*) echo "CPU_SIDE_PLACE is in or out, not '$place'" >&2; exit 2 ;;
esac
sweep_reps=${CPU_SIDE_REPS:-3}
t0=$SECONDS
failed=()

# step NAME COMMAND...: runs it into LOGDIR/NAME.log (stdout and stderr) and
# says how long it took; a failure is noted and the run goes on.
step() {
    local name=$1
    shift
    local s=$SECONDS
    printf '==== %s  [%ds]\n$ %s\n' "$name" $((SECONDS - t0)) "$*" | tee "$log/$name.log"
    if ! "$@" >>"$log/$name.log" 2>&1; then
        failed+=("$name")
        echo "     (exit status $?: see $log/$name.log)"
    fi
    echo "     $((SECONDS - s)) s" | tee -a "$log/$name.log"
}

{
    date -u +%Y-%m-%dT%H:%M:%SZ
    git -C "$root" rev-parse HEAD 2>/dev/null
    nproc
    lscpu 2>/dev/null | grep -E 'Model name|^CPU\(s\)|Thread|Core|Socket|NUMA|L2|L3'
    free -g | head -n 2
    nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null
} >"$log/host.txt"

step 00-machine "$bench" --bandwidth
if [ "${CPU_SIDE_FFTW:-1}" != 0 ]; then
    # shellcheck disable=SC2086
    step 10-cpu-fftw "$bench" --mode cpu --baselines fftw-estimate,fftw-measure \
        --fftw-measure-limit 20 --reps 2 "${bench_place[@]}" --no-bandwidth \
        --csv "$log/cpu-fftw.csv" $big
    # shellcheck disable=SC2086
    step 11-cpu-measure "$bench" --mode cpu --baselines none --hfft-measure --reps 3 \
        "${bench_place[@]}" --no-bandwidth --csv "$log/cpu-measure.csv" $big
fi
# shellcheck disable=SC2086
step 20-tune "$tune" --budget 2GiB "${tune_place[@]}" --wisdom "$wisdom" $big
# shellcheck disable=SC2086
step 30-tuned "$bench" --mode gpu,auto --alternate --baselines none --budget 2GiB --wisdom "$wisdom" \
    --reps 5 --each "${bench_place[@]}" --csv "$log/tuned.csv" $big
# shellcheck disable=SC2086
step 40-sweep-tune "$tune" --budget 2GiB "${tune_place[@]}" --wisdom "$wisdom" $small
# shellcheck disable=SC2086
step 41-sweep "$bench" --mode gpu,cpu,auto --alternate --baselines none --budget 2GiB --wisdom "$wisdom" \
    --reps "$sweep_reps" --each "${bench_place[@]}" --no-bandwidth --csv "$log/sweep.csv" $small
step 50-verify "$bench" --mode cpu,auto --baselines none --budget 2GiB --wisdom "$wisdom" \
    --reps 1 "${bench_place[@]}" --verify --no-bandwidth 2d:8192x8192:f32 3d:256x256x256:f32 2d:4096x4096:f64

{
    echo "cpu-side.sh: $((SECONDS - t0)) s; logs in $log"
    [ ${#failed[@]} -gt 0 ] && echo "failed steps: ${failed[*]}"
    echo
    echo "== machine"
    grep -hE '^(link|host memory)' "$log/00-machine.log"
    echo
    echo "== CPU-only against FFTW (median of 2; xFFTW = best FFTW / this)"
    grep -hE '^(==|engine|hfft-|fftw-|cpu_mem)' "$log/10-cpu-fftw.log" "$log/11-cpu-measure.log" 2>/dev/null
    echo
    echo "== hfft-tune"
    grep -hE '^(  candidate|  GPU-only|  CPU|  hybrid|  best|  chosen|  model|problem|summary|  [0-9]d |host|link|wisdom written)' \
        "$log/20-tune.log" "$log/40-sweep-tune.log"
    echo
    echo "== tuned against GPU-only (bound: 2 S / duplex; the duplex bound of GPU-only is 2 S / B)"
    grep -hE '^(==|engine|hfft-)' "$log/30-tuned.log"
    echo
    echo "== sweep"
    grep -hE '^(==|engine|hfft-)' "$log/41-sweep.log"
    echo
    echo "== errors"
    grep -hE '^(==|hfft-)' "$log/50-verify.log"
} | tee "$log/summary.txt"
[ ${#failed[@]} -eq 0 ]
