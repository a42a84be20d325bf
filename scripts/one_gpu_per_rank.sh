#!/usr/bin/env bash
# mpirun -np P scripts/one_gpu_per_rank.sh PROGRAM ARGS...: each rank sees only the GPU of its
# node-local rank (Open MPI's OMPI_COMM_WORLD_LOCAL_RANK, else Slurm's SLURM_LOCALID, else 0).
export CUDA_VISIBLE_DEVICES=${OMPI_COMM_WORLD_LOCAL_RANK:-${SLURM_LOCALID:-0}}
exec "$@"
