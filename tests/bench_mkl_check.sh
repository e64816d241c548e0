#!/usr/bin/env bash
# bench_mkl_check.sh BENCH: where hfft-bench was built with MKL, its mkl row on
# small problems of each kind (complex and real, 1D to 3D, both precisions, a
# batch): a time and an error within the tolerance for each, in the table and
# in the CSV, beside the FFTW row that xMKL and speedup_vs_mkl are set against.
set -uo pipefail
bench=${1:?usage: bench_mkl_check.sh BENCH}
fail() { echo "bench_mkl_check: $*" >&2; exit 1; }
dir=$(mktemp -d) || fail "mktemp failed"
trap 'rm -rf "$dir"' EXIT
problems=(2d:64x48:f32 3d:8x12x10:f64 2d:30x22:r32 1d:1000:r64:b3)
out=$("$bench" --mode none --baselines fftw-estimate,mkl --reps 2 --verify --no-bandwidth \
    --csv "$dir/rows.csv" "${problems[@]}" 2>&1) ||
    { echo "$out"; fail "hfft-bench exited with an error"; }
echo "$out"
grep -q "; MKL: not loaded" <<<"$out" && fail "libmkl_rt was not loaded"
# each problem's mkl line: a number for median_s, an error without the ! of one above tolerance
n=$(grep -cE '^mkl +cpu +[0-9.e+-]+ .* [0-9.]+e-[0-9]+ +- +[0-9.]+ +1\.00  mkl dfti ' <<<"$out")
[ "$n" -eq ${#problems[@]} ] || fail "$n mkl rows with a time, an error and xMKL 1.00, not ${#problems[@]}"
python3 - "$dir/rows.csv" ${#problems[@]} <<'PY' || fail "the CSV's mkl rows"
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["engine"] == "mkl"]
assert len(rows) == int(sys.argv[2]), len(rows)
for r in rows:
    assert r["status"] == "ok" and float(r["median_s"]) > 0, r
    assert float(r["speedup_vs_mkl"]) == 1 and float(r["speedup_vs_fftw"]) > 0, r
    assert float(r["error"]) < (1e-5 if r["precision"] == "f32" else 1e-13), r
PY
echo "bench_mkl_check: passed"
