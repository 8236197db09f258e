#!/bin/sh
# env/worker-63.sh: the env contract of job nccl-allreduce-1024, role worker, instance 63.
# Source it with LOCAL_RANK set (default 0): LOCAL_RANK=1 . ./env/worker-63.sh
export PAI_JOB_NAME=nccl-allreduce-1024
export PAI_TASK_ROLE_COUNT=2
export PAI_TASK_ROLE_LIST=launcher,worker
export PAI_TASK_ROLE_TASK_COUNT_launcher=1
export PAI_RESOURCE_launcher=0,0,0,0
export PAI_MIN_FAILED_TASK_COUNT_launcher=1
export PAI_MIN_SUCCEEDED_TASK_COUNT_launcher=1
export PAI_TASK_ROLE_TASK_COUNT_worker=128
export PAI_RESOURCE_worker=8,0,0,0
export PAI_MIN_FAILED_TASK_COUNT_worker=1
export PAI_MIN_SUCCEEDED_TASK_COUNT_worker='-1'
export PAI_JOB_TASK_COUNT=129
export PAI_TASKS_NUM=129
export PAI_JOB_TASK_ROLE_COUNT=2
export PAI_TASK_ROLES_NUM=2
export PAI_JOB_TASK_ROLE_LIST=launcher,worker
export MASTER_ADDR=nccl-allreduce-1024-launcher-0-0.nccl-allreduce-1024
export MASTER_PORT=22225
export PAI_MAX_RESTARTS=0
export PAI_CHECKPOINT_INTERVAL_SECONDS=4325
export NCCL_IB_TC=106
export NCCL_IB_GID_INDEX=3
export NCCL_CROSS_NIC=0
export NCCL_SOCKET_IFNAME=bond0
export GLOO_SOCKET_IFNAME=bond0
export NCCL_IB_HCA=mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7
export NODE_RANK=64
export GROUP_RANK=64
export NNODES=129
export NPROC_PER_NODE=8
export LOCAL_WORLD_SIZE=8
export ROLE_NAME=worker
export ROLE_WORLD_SIZE=1024
export PAI_CURRENT_TASK_ROLE_NAME=worker
export PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX=63
export PAI_HOST_IP_worker_63=nccl-allreduce-1024-node-0-63.nccl-allreduce-1024
export PAI_CONTAINER_HOST_IP=nccl-allreduce-1024-node-0-63.nccl-allreduce-1024
export PAI_CURRENT_CONTAINER_IP=nccl-allreduce-1024-node-0-63.nccl-allreduce-1024
export PAI_CONTAINER_HOST_PORT_LIST=''
export PAI_RESTART_COUNT=0
export TORCHELASTIC_RESTART_COUNT=0
export OMPI_MCA_orte_default_hostfile=hostfile
case "${LOCAL_RANK:-0}" in
  0) export RANK=504 LOCAL_RANK=0 WORLD_SIZE=1024 ROLE_RANK=504 ;;
  1) export RANK=505 LOCAL_RANK=1 WORLD_SIZE=1024 ROLE_RANK=505 ;;
  2) export RANK=506 LOCAL_RANK=2 WORLD_SIZE=1024 ROLE_RANK=506 ;;
  3) export RANK=507 LOCAL_RANK=3 WORLD_SIZE=1024 ROLE_RANK=507 ;;
  4) export RANK=508 LOCAL_RANK=4 WORLD_SIZE=1024 ROLE_RANK=508 ;;
  5) export RANK=509 LOCAL_RANK=5 WORLD_SIZE=1024 ROLE_RANK=509 ;;
  6) export RANK=510 LOCAL_RANK=6 WORLD_SIZE=1024 ROLE_RANK=510 ;;
  7) export RANK=511 LOCAL_RANK=7 WORLD_SIZE=1024 ROLE_RANK=511 ;;
  *) echo 'env/worker-63.sh: LOCAL_RANK must be 0..7' >&2; return 1 2>/dev/null || exit 1 ;;
esac
