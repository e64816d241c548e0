#!/usr/bin/env bash
# targets.sh OUT SET...: on a GPU machine, from the repository root, after a
# build in build/, runs the benchmark sets the issues' targets name, each into
# OUT/SET.log (the table) and OUT/SET.csv (the rows).  Sets:
#   fit     arrays that fit the card, 2D and 3D, f32 and f64, 8 and 32 GiB:
#           hfft (one trip) against cuFFT copy-execute-copy, one-trip bound
#   stream  8 GiB with a 2 GiB budget, 2D and 3D, f32 and f64: duplex bound
#   real    r2c: 2D 32768 x 65536 real f32 (8 GiB) at 2 GiB against the complex
#           transform of the same points (16 GiB) at 2 GiB, and at the default
#           budget against cuFFT R2C
#   real3d  3D 2048^3 real f32 (32 GiB) at the default budget and at 8 GiB,
#           against the complex transform of the same points (64 GiB, in place,
#           hfft-huge)
#   big     2D 131072 x 86016 f32 (84 GiB, larger than an 80 GB card), in place
#           (hfft-huge: hfft_malloc and hfft_free timed, a plane wave checked)
#   line    1D 2^33 points f32 (64 GiB), in place (hfft-huge)
#   batch   65536-point f32 transforms, 64 GiB in all, in place (hfft-huge)
#   cpu1d   1D 2^30 f32 on the CPU against FFTW with the same threads; its error
#           (hfft-huge)
#   images  streaming images (hfft-stream-bench): the image at the end and every F
#           points against a cuFFT stream by hand, f32 and f64; N = 65536 at an 8 GiB
#           budget (the image passed through the card)
#   images-cards  (2 x H200) streaming images held on both cards: 8 GiB verified,
#           128 GiB (N = 131072 f32) with a flush every 4 x 10^8 points
# The 8 GiB runs are verified against FFTW in higher precision; larger ones
# are not (the reference needs twice the array again in host memory).
set -uo pipefail
out=${1:?usage: targets.sh OUT SET...}
shift
mkdir -p "$out"
bench=build/bench/hfft-bench
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader >"$out/gpu.txt" 2>&1
run() { # set, then hfft-bench arguments
    local set=$1
    shift
    echo "+ hfft-bench $*" >>"$out/$set.log"
    local t0=$SECONDS
    "$bench" --csv "$out/$set.csv" "$@" >>"$out/$set.log" 2>>"$out/$set.err"
    echo "  (exit $?, $((SECONDS - t0))s wall)" >>"$out/$set.log"
}
huge() { # set, then hfft-huge arguments
    local set=$1
    shift
    echo "+ hfft-huge $*" >>"$out/$set.log"
    local t0=$SECONDS
    build/bench/hfft-huge "$@" >>"$out/$set.log" 2>&1
    echo "  (exit $?, $((SECONDS - t0))s wall)" >>"$out/$set.log"
    cat "$out/$set.log"
}
for set in "$@"; do
    case $set in
    fit)
        run fit --mode gpu --baselines cufft-copy-exec-copy --reps 3 --verify \
            2d:32768x32768:f32 3d:1024x1024x1024:f32 2d:16384x32768:f64
        run fit --mode gpu --baselines cufft-copy-exec-copy --reps 3 \
            3d:512x1024x1024:f64 2d:65536x65536:f32 3d:1024x2048x2048:f32 \
            2d:32768x65536:f64 3d:1024x1024x2048:f64
        ;;
    stream)
        run stream --mode gpu --baselines none --budget 2GiB --reps 3 --verify \
            2d:32768x32768:f32 3d:1024x1024x1024:f32
        run stream --mode gpu --baselines none --budget 2GiB --reps 3 \
            2d:16384x32768:f64 3d:512x1024x1024:f64
        ;;
    real)
        run real --mode gpu --baselines none --budget 2GiB --reps 3 --verify 2d:32768x65536:r32
        run real --mode gpu --baselines none --budget 2GiB --reps 3 2d:32768x65536:f32
        run real --mode gpu --baselines cufft-copy-exec-copy --reps 3 --verify \
            2d:32768x65536:r32 3d:1024x1024x1024:r64
        ;;
    real3d)
        run real3d --mode gpu --baselines cufft-copy-exec-copy --reps 3 3d:2048x2048x2048:r32
        run real3d --mode gpu --baselines none --budget 8GiB --reps 3 3d:2048x2048x2048:r32
        huge real3d --reps 2 3d:2048x2048x2048:f32
        huge real3d --reps 2 --budget 8GiB 3d:2048x2048x2048:f32
        ;;
    big)
        huge big --reps 2 2d:131072x86016:f32
        continue
        ;;
    line)
        huge line --reps 2 1d:8589934592:f32
        continue
        ;;
    batch)
        huge batch --reps 2 1d:65536:f32:b131072
        continue
        ;;
    cpu1d)
        # timed against FFTW; the error from hfft-huge's exact plane wave (a long-double
        # FFTW reference of 2^30 points would take longer than the whole set)
        run cpu1d --mode cpu --baselines fftw-estimate,fftw-measure --fftw-measure-limit 30 \
            --reps 3 1d:1073741824:f32
        huge cpu1d --mode cpu --reps 1 1d:1073741824:f32
        ;;
    cards)
        run cards --mode gpu --devices 0,1 --baselines cufftxt-copy-exec-copy --reps 3 \
            --timeline "$out/cards.png" 2d:32768x32768:f32 2d:65536x65536:f32
        run cards --mode gpu --devices 0,1 --baselines cufftxt-copy-exec-copy --reps 3 \
            3d:1024x2048x2048:f32 2d:32768x65536:f64 3d:1024x1024x2048:f64
        run cards --mode gpu --devices 0 --baselines none --reps 3 \
            2d:65536x65536:f32 3d:1024x2048x2048:f32
        ;;
    mpi)
        # two ranks, a card each, against FFTW-MPI with 16 threads per rank
        echo "+ mpirun -np 2 hfft-mpi-bench --threads 16 2d:32768x32768:f32 2d:65536x65536:f32" \
            >>"$out/mpi.log"
        OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun --allow-run-as-root \
            -np 2 --bind-to none bench/mpi-gpu-bind.sh build/bench/hfft-mpi-bench --threads 16 \
            --reps 3 --fftw-reps 2 --csv "$out/mpi.csv" 2d:32768x32768:f32 2d:65536x65536:f32 \
            >>"$out/mpi.log" 2>&1
        echo "  (exit $?)" >>"$out/mpi.log"
        cat "$out/mpi.log"
        continue
        ;;
    cards-big)
        huge cards-big --devices 0,1 --reps 2 2d:163840x163840:f32
        continue
        ;;
    images)
        # streaming images against a cuFFT stream by hand (hfft-stream-bench): the image
        # once at the end, then every F points, on the card; then an image larger than
        # an 8 GiB budget, passed through the card at direct flushes
        sb=build/bench/hfft-stream-bench
        {
            echo "+ hfft-stream-bench --sizes 1024,2048,4096,8192 --every 0 --ways auto,grid,cufft --verify"
            "$sb" --sizes 1024,2048,4096,8192 --every 0 --ways auto,grid,cufft --verify
            "$sb" --prec f64 --sizes 1024,4096 --every 0 --ways auto,grid,cufft --verify
            echo "+ hfft-stream-bench --sizes 4096,16384 --every 1,16,256 --flushes 64 (16 at 16384)"
            "$sb" --sizes 4096 --every 1,16,256 --flushes 64
            "$sb" --sizes 4096 --every 4096,65536 --flushes 64 --ways auto,grid,cufft
            "$sb" --sizes 16384 --every 1,16,256,4096,65536 --flushes 16
            echo "+ HFFT_DEVICE_MEMORY=8GiB hfft-stream-bench --sizes 65536 --every 16,65536 --flushes 4"
            HFFT_DEVICE_MEMORY=8GiB "$sb" --sizes 65536 --every 16,65536 --flushes 4 \
                --ways auto,direct,grid
        } >>"$out/images.log" 2>&1
        cat "$out/images.log"
        continue
        ;;
    images-cards)
        # (2 x H200) streaming images held on both cards: 8 GiB checked against FFTW,
        # then 128 GiB (N = 131072 f32, half of each card) with a flush every 4 x 10^8
        # points; the link with both cards at once from hfft-bench's probe
        sb=build/bench/hfft-stream-bench
        {
            echo "+ HFFT_DEVICES=0,1 hfft-stream-bench --sizes 32768 --points 100000000 --every 0,25000000 --ways auto,direct,grid --verify"
            HFFT_DEVICES=0,1 "$sb" --sizes 32768 --points 100000000 --every 0,25000000 \
                --ways auto,direct,grid --verify
            echo "+ HFFT_DEVICES=0,1 hfft-stream-bench --sizes 131072 --points 1200000000 --every 400000000 --ways auto"
            HFFT_DEVICES=0,1 "$sb" --sizes 131072 --points 1200000000 --every 400000000 \
                --ways auto
            build/bench/hfft-bench --mode none --devices 0,1 --baselines none \
                2d:1024x1024:f32 | grep -E "^link"
        } >>"$out/images-cards.log" 2>&1
        cat "$out/images-cards.log"
        continue
        ;;
    *)
        echo "targets.sh: unknown set $set" >&2
        exit 2
        ;;
    esac
    tail -n +1 "$out/$set.log" | grep -E "^(==|engine|hfft|cufft|fftw|link)" | cut -c1-200
done
