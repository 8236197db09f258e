#!/bin/sh
# env/worker-0.sh: the env contract of job llama-13b-sft, role worker, instance 0.
# Source it with LOCAL_RANK set (default 0): LOCAL_RANK=1 . ./env/worker-0.sh
export PAI_JOB_NAME=llama-13b-sft
export PAI_TASK_ROLE_COUNT=1
export PAI_TASK_ROLE_LIST=worker
export PAI_TASK_ROLE_TASK_COUNT_worker=2
export PAI_RESOURCE_worker=8,64,921600,65536
export PAI_MIN_FAILED_TASK_COUNT_worker=1
export PAI_MIN_SUCCEEDED_TASK_COUNT_worker='-1'
export PAI_JOB_TASK_COUNT=2
export PAI_TASKS_NUM=2
export PAI_JOB_TASK_ROLE_COUNT=1
export PAI_TASK_ROLES_NUM=1
export PAI_JOB_TASK_ROLE_LIST=worker
export PAI_TASK_ROLE_worker_HOST_LIST=llama-13b-sft-node-0-0.llama-13b-sft,llama-13b-sft-node-0-1.llama-13b-sft
export PAI_HOST_IP_worker_0=llama-13b-sft-node-0-0.llama-13b-sft
export PAI_HOST_IP_worker_1=llama-13b-sft-node-0-1.llama-13b-sft
export PAI_TASK_ROLE_INSTANCES=worker:0,worker:1
export MASTER_ADDR=llama-13b-sft-node-0-0.llama-13b-sft
export MASTER_PORT=21505
export PAI_MAX_RESTARTS=5
export PAI_OUTPUT_DIR=/mnt/checkpoints/llama-13b-sft
export PAI_CHECKPOINT_INTERVAL_SECONDS=35012
export NCCL_SOCKET_IFNAME=ib0
export GLOO_SOCKET_IFNAME=ib0
export NCCL_IB_HCA=mlx5_0,mlx5_1,mlx5_2,mlx5_3
export NCCL_DEBUG=INFO
export PYTHONUNBUFFERED=1
export NODE_RANK=0
export GROUP_RANK=0
export NNODES=2
export NPROC_PER_NODE=8
export LOCAL_WORLD_SIZE=1
export ROLE_NAME=worker
export ROLE_WORLD_SIZE=2
export WORLD_SIZE=2
export RANK=0
export PET_NNODES=2
export PET_NODE_RANK=0
export PET_NPROC_PER_NODE=8
export PET_MASTER_ADDR=llama-13b-sft-node-0-0.llama-13b-sft
export PET_MASTER_PORT=21505
export PAI_CURRENT_TASK_ROLE_NAME=worker
export PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX=0
export PAI_CONTAINER_HOST_IP=llama-13b-sft-node-0-0.llama-13b-sft
export PAI_CURRENT_CONTAINER_IP=llama-13b-sft-node-0-0.llama-13b-sft
export PAI_CONTAINER_HOST_PORT_LIST=''
export PAI_RESTART_COUNT=0
export TORCHELASTIC_RESTART_COUNT=0
case "${LOCAL_RANK:-0}" in
  0) export LOCAL_RANK=0 ROLE_RANK=0 ;;
  *) echo 'env/worker-0.sh: LOCAL_RANK must be 0..0' >&2; return 1 2>/dev/null || exit 1 ;;
esac
