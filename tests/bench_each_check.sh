#!/usr/bin/env bash
# bench_each_check.sh BENCH: hfft-bench --each on the emulated device: for each
# hfft row, one line per timed execute (hybrid rows with each round's GPU and
# CPU sides) and a mean that is the mean of those lines; with --alternate, the
# rows' executes taking turns (the lines in the order the executes ran).  Timings
# on the emulated device mean nothing; what this checks is what the options print.
set -uo pipefail
bench=${1:?usage: bench_each_check.sh BENCH}
fail() { echo "bench_each_check: $*" >&2; exit 1; }
out=$(HFFT_DEVICE=emulated "$bench" --mode hybrid,gpu,cpu --round-ratio 0.5,0.5 --baselines none \
    --budget 1MiB --reps 4 --each --no-bandwidth 2d:256x384:f32 2>&1) ||
    { echo "$out"; fail "hfft-bench exited with an error"; }
echo "$out"
for e in hybrid gpu cpu; do
    lines=$(grep -E "^\[2d:256x384:f32\] hfft-$e: execute [1-4]: " <<<"$out") ||
        fail "no execute lines for hfft-$e"
    [ "$(wc -l <<<"$lines")" -eq 4 ] || fail "hfft-$e: $(wc -l <<<"$lines") execute lines, not 4"
    grep -q "; round 2 " <<<"$lines" || fail "hfft-$e: the execute lines give no round 2"
    if [ $e = hybrid ]; then
        [ "$(grep -c '(GPU [0-9.]*, CPU [0-9.]*)' <<<"$lines")" -eq 4 ] ||
            fail "hfft-hybrid: execute lines without each round's GPU and CPU sides"
    elif grep -q "(GPU" <<<"$lines"; then
        fail "hfft-$e: sides printed for a plan of one side"
    fi
    mean=$(grep -E "^\[2d:256x384:f32\] hfft-$e: mean of 4 executes " <<<"$out" |
        awk '{print $(NF-1)}')
    [ -n "$mean" ] || fail "hfft-$e: no mean line"
    # the lines' times are rounded to 0.1 ms, as is the mean
    awk -v m="$mean" '{ s += $5 } END { d = s / NR - m; if (d < 0) d = -d; exit !(d <= 1e-4) }' \
        <<<"$lines" || fail "hfft-$e: mean $mean is not the mean of its execute lines"
done
# --alternate: execute k of each row, then execute k + 1 of each, the order reversed
# on odd turns (gpu cpu, cpu gpu, gpu cpu): the rows' lines take turns, and each
# row still gets its table line
out=$(HFFT_DEVICE=emulated "$bench" --mode gpu,cpu --alternate --baselines none --budget 1MiB \
    --reps 3 --each --no-bandwidth --inplace 2d:256x384:f32 2>&1) ||
    { echo "$out"; fail "hfft-bench --alternate exited with an error"; }
echo "$out"
order=$(grep -oE "^\[2d:256x384:f32\] hfft-(gpu|cpu): execute [1-3]:" <<<"$out" | awk '{print $2 $4}' |
    tr -d ':\n')
[ "$order" = "hfft-gpu1hfft-cpu1hfft-cpu2hfft-gpu2hfft-gpu3hfft-cpu3" ] ||
    fail "--alternate: executes ran in the order '$order', not by turns"
for e in gpu cpu; do
    grep -qE "^hfft-$e +[^ ]+ +[0-9.]+ " <<<"$out" || fail "--alternate: no table line for hfft-$e"
done
echo "bench_each_check: passed"
