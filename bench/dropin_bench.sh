#!/usr/bin/env bash
# dropin_bench.sh: an FFTW program (fftwf_plan_dft_2d + fftwf_execute) on hfft
# through the drop-in, on hfft's own API, and on cufftw, side by side.  The
# first two run in one process (hfft-dropin-bench); cufftw exports the same
# names, so it runs in a second (hfft-cufftw-bench, CUDA builds), and only
# where the array fits the card.
#   bench/dropin_bench.sh [BUILD] [N0xN1] [REPS]     default build, 32768x32768, 5
set -euo pipefail
build=${1:-build} size=${2:-32768x32768} reps=${3:-5}
dir=$build/src/fftw3
[ -x "$dir/hfft-dropin-bench" ] || { echo "no $dir/hfft-dropin-bench: build with HFFT_BUILD_BENCH=ON" >&2; exit 1; }
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
"$dir/hfft-dropin-bench" "$size" "$reps"
if [ -x "$dir/hfft-cufftw-bench" ]; then
    "$dir/hfft-cufftw-bench" "$size" "$reps" ||
        echo "cufftw: no result at $size (it needs the array and its work area on the card)"
else
    echo "cufftw: not built (needs the CUDA backend and libcufftw)"
fi
