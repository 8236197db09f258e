#!/bin/sh
# env/worker-7.sh: the env contract of job llm-pyxis, role worker, instance 7.
# Source it with LOCAL_RANK set (default 0): LOCAL_RANK=1 . ./env/worker-7.sh
export PAI_JOB_NAME=llm-pyxis
export PAI_TASK_ROLE_COUNT=1
export PAI_TASK_ROLE_LIST=worker
export PAI_TASK_ROLE_TASK_COUNT_worker=8
export PAI_RESOURCE_worker=8,96,1024000,0
export PAI_MIN_FAILED_TASK_COUNT_worker=1
export PAI_MIN_SUCCEEDED_TASK_COUNT_worker='-1'
export PAI_JOB_TASK_COUNT=8
export PAI_TASKS_NUM=8
export PAI_JOB_TASK_ROLE_COUNT=1
export PAI_TASK_ROLES_NUM=1
export PAI_JOB_TASK_ROLE_LIST=worker
export PAI_TASK_ROLE_worker_HOST_LIST=slurm-0,slurm-1,slurm-2,slurm-3,slurm-4,slurm-5,slurm-6,slurm-7
export PAI_HOST_IP_worker_0=slurm-0
export PAI_HOST_IP_worker_1=slurm-1
export PAI_HOST_IP_worker_2=slurm-2
export PAI_HOST_IP_worker_3=slurm-3
export PAI_HOST_IP_worker_4=slurm-4
export PAI_HOST_IP_worker_5=slurm-5
export PAI_HOST_IP_worker_6=slurm-6
export PAI_HOST_IP_worker_7=slurm-7
export PAI_TASK_ROLE_INSTANCES=worker:0,worker:1,worker:2,worker:3,worker:4,worker:5,worker:6,worker:7
export MASTER_ADDR=slurm-0
export MASTER_PORT=27481
export PAI_MAX_RESTARTS=3
export PAI_OUTPUT_DIR=/lustre/runs/llm-pyxis
export PAI_CHECKPOINT_INTERVAL_SECONDS=17486
export NODE_RANK=7
export GROUP_RANK=7
export NNODES=8
export NPROC_PER_NODE=8
export LOCAL_WORLD_SIZE=8
export ROLE_NAME=worker
export ROLE_WORLD_SIZE=64
export PAI_CURRENT_TASK_ROLE_NAME=worker
export PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX=7
export PAI_CONTAINER_HOST_IP=slurm-7
export PAI_CURRENT_CONTAINER_IP=slurm-7
export PAI_CONTAINER_HOST_PORT_LIST=''
export PAI_RESTART_COUNT=0
export TORCHELASTIC_RESTART_COUNT=0
case "${LOCAL_RANK:-0}" in
  0) export RANK=56 LOCAL_RANK=0 WORLD_SIZE=64 ROLE_RANK=56 ;;
  1) export RANK=57 LOCAL_RANK=1 WORLD_SIZE=64 ROLE_RANK=57 ;;
  2) export RANK=58 LOCAL_RANK=2 WORLD_SIZE=64 ROLE_RANK=58 ;;
  3) export RANK=59 LOCAL_RANK=3 WORLD_SIZE=64 ROLE_RANK=59 ;;
  4) export RANK=60 LOCAL_RANK=4 WORLD_SIZE=64 ROLE_RANK=60 ;;
  5) export RANK=61 LOCAL_RANK=5 WORLD_SIZE=64 ROLE_RANK=61 ;;
  6) export RANK=62 LOCAL_RANK=6 WORLD_SIZE=64 ROLE_RANK=62 ;;
  7) export RANK=63 LOCAL_RANK=7 WORLD_SIZE=64 ROLE_RANK=63 ;;
  *) echo 'env/worker-7.sh: LOCAL_RANK must be 0..7' >&2; return 1 2>/dev/null || exit 1 ;;
esac
