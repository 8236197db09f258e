#!/bin/sh
# env/worker-0.sh: the env contract of job llama-70b-pretrain, role worker, instance 0.
# Source it with LOCAL_RANK set (default 0): LOCAL_RANK=1 . ./env/worker-0.sh
export PAI_JOB_NAME=llama-70b-pretrain
export PAI_TASK_ROLE_COUNT=1
export PAI_TASK_ROLE_LIST=worker
export PAI_TASK_ROLE_TASK_COUNT_worker=512
export PAI_RESOURCE_worker=8,128,1843200,131072
export PAI_MIN_FAILED_TASK_COUNT_worker=1
export PAI_MIN_SUCCEEDED_TASK_COUNT_worker='-1'
export PAI_JOB_TASK_COUNT=512
export PAI_TASKS_NUM=512
export PAI_JOB_TASK_ROLE_COUNT=1
export PAI_TASK_ROLES_NUM=1
export PAI_JOB_TASK_ROLE_LIST=worker
export MASTER_ADDR=10.1.0.1
export MASTER_PORT=24401
export PAI_MAX_RESTARTS=20
export PAI_OUTPUT_DIR=/mnt/cpfs/runs/llama-70b-pretrain
export PAI_CHECKPOINT_INTERVAL_SECONDS=2151
export NCCL_IB_TC=106
export NCCL_IB_GID_INDEX=3
export NCCL_CROSS_NIC=0
export NCCL_SOCKET_IFNAME=bond0
export GLOO_SOCKET_IFNAME=bond0
export NCCL_IB_HCA=mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7
export CUDA_DEVICE_MAX_CONNECTIONS=1
export PYTHONUNBUFFERED=1
export NODE_RANK=0
export GROUP_RANK=0
export NNODES=512
export NPROC_PER_NODE=8
export LOCAL_WORLD_SIZE=1
export ROLE_NAME=worker
export ROLE_WORLD_SIZE=512
export WORLD_SIZE=512
export RANK=0
export PET_NNODES=512
export PET_NODE_RANK=0
export PET_NPROC_PER_NODE=8
export PET_MASTER_ADDR=10.1.0.1
export PET_MASTER_PORT=24401
export PAI_CURRENT_TASK_ROLE_NAME=worker
export PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX=0
export PAI_HOST_IP_worker_0=10.1.0.1
export PAI_CONTAINER_HOST_IP=10.1.0.1
export PAI_CURRENT_CONTAINER_IP=10.1.0.1
export PAI_CONTAINER_HOST_PORT_LIST=''
export PAI_RESTART_COUNT=0
export TORCHELASTIC_RESTART_COUNT=0
case "${LOCAL_RANK:-0}" in
  0) export LOCAL_RANK=0 ROLE_RANK=0 ;;
  *) echo 'env/worker-0.sh: LOCAL_RANK must be 0..0' >&2; return 1 2>/dev/null || exit 1 ;;
esac
