#!/usr/bin/env bash
# isolation.sh: libhfft calls the real FFTW, never the drop-in's fftw_* (no
# recursion, no wrong library), whatever else the program loads.
#   isolation.sh LIBHFFT TEST_DROPIN TEST_DROPIN_WITH_FFTW
# 1. libhfft has no undefined FFTW symbol and no FFTW library among its
#    dependencies: it reaches FFTW only through dlopen and dlsym on FFTW's own
#    handles (cpu/fftw_bind.c), so no fftw_* of the global scope can take a call.
# 2. The drop-in's tests (every kind of transform, both precisions, so every
#    FFTW function libhfft uses) pass with FFTW itself globally visible: linked
#    into the program after the drop-in, or opened with RTLD_GLOBAL at run time.
#    (Preloading FFTW would hand the program's own fftw_* calls to FFTW, as any
#    interposition does: that is the program choosing FFTW, not the drop-in.)
# 3. Without sanitizers, FFTW opened by libhfft binds its own calls to its own
#    public functions inside itself (RTLD_DEEPBIND), not to the drop-in's.
set -euo pipefail
lib=$1 plain=$2 withfftw=$3
fail() { echo "FAILED: $*" >&2; exit 1; }

echo "== 1. FFTW symbols libhfft imports (none expected)"
case $lib in
*.a) und=$(nm --undefined-only "$lib" 2>/dev/null | awk '$1 == "U" { print $2 }' | grep -E '^fftw[fql]?_' || true) ;;
*) und=$(nm -D --undefined-only "$lib" | awk '{ print $NF }' | grep -E '^fftw[fql]?_' || true)
   needed=$(readelf -d "$lib" | grep NEEDED | grep -i fftw || true)
   [ -z "$needed" ] || fail "libhfft depends on FFTW: $needed" ;;
esac
[ -z "$und" ] || fail "libhfft imports FFTW by name: $(echo $und)"
echo "nm: $lib imports no fftw_* / fftwf_* symbol, and depends on no FFTW library"

run() { "$@" --verbose=0 --jobs 1 2>&1 | tail -n 1; }

echo "== 2a. FFTW linked after the drop-in"
order=$(readelf -d "$withfftw" | awk '/NEEDED/ { gsub(/[][]/, "", $NF); print $NF }' | tr '\n' ' ')
echo "needed, in order: $order"
pos() { echo "$order" | tr ' ' '\n' | grep -n "^$1" | head -n 1 | cut -d: -f1; }
[ -n "$(pos libfftw3.so)" ] && [ "$(pos libhfftw3.so)" -lt "$(pos libfftw3.so)" ] ||
    fail "$withfftw should need libhfftw3 before libfftw3"
HFFT_DEVICE=none run "$withfftw"
HFFT_DEVICE=emulated HFFT_DEVICE_MEMORY=64KiB run "$withfftw"

echo "== 2b. FFTW opened globally at run time, before any plan (as a plugin would)"
HFFT_DEVICE=none TD_LOAD_FFTW_GLOBAL=1 run "$plain"

echo "== 3. where FFTW's own calls bind (the drop-in only, FFTW loaded by libhfft)"
if readelf -d "$plain" | grep -q -E 'NEEDED.*lib[atm]san' ||
    nm -D "$plain" 2>/dev/null | grep -q -E ' __(asan|tsan|msan)_'; then
    echo "skipped under a sanitizer: FFTW is opened without RTLD_DEEPBIND there"
    exit 0
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
HFFT_DEVICE=none LD_DEBUG=bindings LD_DEBUG_OUTPUT="$dir/ld" \
    "$plain" --verbose=0 --jobs 1 --filter '*/basic_real' >/dev/null 2>&1 || fail "the drop-in's tests"
bad=$(cat "$dir"/ld.* | grep -E 'binding file [^ ]*libfftw3[^ ]* .* to [^ ]*libhfftw3' | head -n 5 || true)
[ -z "$bad" ] || fail "FFTW binds into the drop-in: $bad"
n=$(cat "$dir"/ld.* | grep -c -E 'binding file [^ ]*libfftw3f?(_threads)?\.so[^ ]* .* to [^ ]*libfftw3' || true)
[ "$n" -gt 0 ] || fail "FFTW was not loaded (no binding of its own seen)"
echo "FFTW's $n bindings of its own symbols all resolve inside FFTW; none to libhfftw3"
echo "PASSED"
