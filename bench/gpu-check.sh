#!/usr/bin/env bash
# gpu-check.sh OUT: on a GPU machine, from the repository root, builds hfft for
# Hopper (sm_90), runs the whole test suite (the GPU suite included) and
# compute-sanitizer's memcheck on the GPU suite and on the take-back tests on
# the card (HFFT_TEST_DEVICE=cuda), racecheck and synccheck on
# the tests of the GPU schedules (one trip, residency, four-step lines, real
# rounds).  Logs go to OUT; the figures come from targets.sh.
set -uo pipefail
out=${1:?usage: gpu-check.sh OUT}
mkdir -p "$out"
cmake -S . -B build -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 >"$out/configure.log" 2>&1 &&
    cmake --build build >"$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee "$out/gpu.txt"
ctest --test-dir build --output-on-failure >"$out/ctest.log" 2>&1
tail -15 "$out/ctest.log"
if command -v compute-sanitizer >/dev/null; then
    compute-sanitizer --tool memcheck --leak-check full --target-processes all \
        build/tests/test_gpu --jobs 1 --verbose=0 >"$out/memcheck.log" 2>&1
    grep -E "ERROR SUMMARY|Synthesis" "$out/memcheck.log" | tail -3
    # the GPU taking back a late CPU's units, on the card
    HFFT_TEST_DEVICE=cuda compute-sanitizer --tool memcheck --target-processes all \
        build/tests/test_internals --filter 'internals/*takes_back*' --jobs 1 >"$out/memcheck-late.log" 2>&1
    grep -E "ERROR SUMMARY|Synthesis" "$out/memcheck-late.log" | tail -3
    for tool in racecheck synccheck; do
        for t in "test_gpu --filter gpu/one_trip_and_residency" \
            "test_gpu --filter gpu/long_lines_four_step" \
            "test_guru --filter guru/real_rounds_cuda"; do
            set -- $t
            echo "== $tool $*" >>"$out/$tool.log"
            compute-sanitizer --tool $tool --target-processes all build/tests/$1 $2 $3 --jobs 1 >>"$out/$tool.log" 2>&1
        done
        echo "$tool: $(grep -h 'ERROR SUMMARY' "$out/$tool.log" | sort | uniq -c | tr '\n' ';')"
    done
fi
