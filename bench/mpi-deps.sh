#!/usr/bin/env bash
# bench/mpi-deps.sh: adds FFTW-MPI's Debian packages (hfft-mpi-bench's baseline, and the
# tests of the local sizes) to .device-deps/debs, beside what the shared fetch script put
# there (FFTW3, hwloc, Criterion, Open MPI).  Run it here, from the project root, after
# that script; on the GPU machine `source .device-deps/env.sh` unpacks every .deb there.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
mkdir -p .device-deps/debs
pkgs="libfftw3-mpi3 libfftw3-mpi-dev"
( cd .device-deps/debs && { apt-get download $pkgs >/dev/null 2>&1 ||
    { apt-get update >/dev/null && apt-get download $pkgs >/dev/null; }; } )
ls .device-deps/debs | grep -E '^libfftw3-mpi'
