#!/usr/bin/env bash
# bench/mpi-gpu-bind.sh CMD...: under mpirun, gives each rank one GPU of its node, the one
# of its rank on the node (modulo the GPUs visible), then runs CMD.
#   mpirun -np 2 bench/mpi-gpu-bind.sh build/bench/hfft-mpi-bench 2d:65536x65536:f32
set -euo pipefail
local_rank=${OMPI_COMM_WORLD_LOCAL_RANK:-${MPI_LOCALRANKID:-${SLURM_LOCALID:-0}}}
IFS=, read -r -a visible <<< "${CUDA_VISIBLE_DEVICES:-}"
if [ "${#visible[@]}" -eq 0 ]; then
    count=$(nvidia-smi -L 2>/dev/null | wc -l || true)
    [ "${count:-0}" -gt 0 ] || count=1
    visible=($(seq 0 $((count - 1))))
fi
export CUDA_VISIBLE_DEVICES=${visible[$((local_rank % ${#visible[@]}))]}
exec "$@"
