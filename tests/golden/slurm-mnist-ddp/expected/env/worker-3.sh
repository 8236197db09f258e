#!/bin/sh
# env/worker-3.sh: the env contract of job mnist-ddp, role worker, instance 3.
# Source it with LOCAL_RANK set (default 0): LOCAL_RANK=1 . ./env/worker-3.sh
export PAI_JOB_NAME=mnist-ddp
export PAI_TASK_ROLE_COUNT=1
export PAI_TASK_ROLE_LIST=worker
export PAI_TASK_ROLE_TASK_COUNT_worker=4
export PAI_RESOURCE_worker=2,16,65536,8192
export PAI_MIN_FAILED_TASK_COUNT_worker=1
export PAI_MIN_SUCCEEDED_TASK_COUNT_worker='-1'
export PAI_JOB_TASK_COUNT=4
export PAI_TASKS_NUM=4
export PAI_JOB_TASK_ROLE_COUNT=1
export PAI_TASK_ROLES_NUM=1
export PAI_JOB_TASK_ROLE_LIST=worker
export PAI_TASK_ROLE_worker_HOST_LIST=slurm-0,slurm-1,slurm-2,slurm-3
export PAI_HOST_IP_worker_0=slurm-0
export PAI_HOST_IP_worker_1=slurm-1
export PAI_HOST_IP_worker_2=slurm-2
export PAI_HOST_IP_worker_3=slurm-3
export PAI_TASK_ROLE_INSTANCES=worker:0,worker:1,worker:2,worker:3
export MASTER_ADDR=slurm-0
export MASTER_PORT=27953
export PAI_MAX_RESTARTS=3
export PAI_OUTPUT_DIR=/mnt/nas/runs/mnist-ddp
export PAI_CHECKPOINT_INTERVAL_SECONDS=24745
export NCCL_IB_DISABLE=1
export NCCL_SOCKET_IFNAME=eth0
export GLOO_SOCKET_IFNAME=eth0
export PYTHONUNBUFFERED=1
export NODE_RANK=3
export GROUP_RANK=3
export NNODES=4
export NPROC_PER_NODE=2
export LOCAL_WORLD_SIZE=1
export ROLE_NAME=worker
export ROLE_WORLD_SIZE=4
export WORLD_SIZE=4
export RANK=3
export PET_NNODES=4
export PET_NODE_RANK=3
export PET_NPROC_PER_NODE=2
export PET_MASTER_ADDR=slurm-0
export PET_MASTER_PORT=27953
export PAI_CURRENT_TASK_ROLE_NAME=worker
export PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX=3
export PAI_CONTAINER_HOST_IP=slurm-3
export PAI_CURRENT_CONTAINER_IP=slurm-3
export PAI_CONTAINER_HOST_PORT_LIST=''
export PAI_RESTART_COUNT=0
export TORCHELASTIC_RESTART_COUNT=0
case "${LOCAL_RANK:-0}" in
  0) export LOCAL_RANK=0 ROLE_RANK=3 ;;
  *) echo 'env/worker-3.sh: LOCAL_RANK must be 0..0' >&2; return 1 2>/dev/null || exit 1 ;;
esac
