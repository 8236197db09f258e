#!/bin/sh
# env/worker-1.sh: the env contract of job roce-k8s, role worker, instance 1.
# Source it with LOCAL_RANK set (default 0): LOCAL_RANK=1 . ./env/worker-1.sh
export PAI_JOB_NAME=roce-k8s
export PAI_TASK_ROLE_COUNT=1
export PAI_TASK_ROLE_LIST=worker
export PAI_TASK_ROLE_TASK_COUNT_worker=3
export PAI_RESOURCE_worker=8,96,1024000,0
export PAI_MIN_FAILED_TASK_COUNT_worker=1
export PAI_MIN_SUCCEEDED_TASK_COUNT_worker='-1'
export PAI_JOB_TASK_COUNT=3
export PAI_TASKS_NUM=3
export PAI_JOB_TASK_ROLE_COUNT=1
export PAI_TASK_ROLES_NUM=1
export PAI_JOB_TASK_ROLE_LIST=worker
export PAI_TASK_ROLE_worker_HOST_LIST=roce-k8s-master-0,roce-k8s-worker-0,roce-k8s-worker-1
export PAI_HOST_IP_worker_0=roce-k8s-master-0
export PAI_HOST_IP_worker_1=roce-k8s-worker-0
export PAI_HOST_IP_worker_2=roce-k8s-worker-1
export PAI_TASK_ROLE_INSTANCES=worker:0,worker:1,worker:2
export MASTER_ADDR=roce-k8s-master-0
export MASTER_PORT=23881
export PAI_MAX_RESTARTS=5
export PAI_CHECKPOINT_INTERVAL_SECONDS=28579
export NCCL_IB_TC=106
export NCCL_IB_GID_INDEX=3
export NCCL_CROSS_NIC=0
export NCCL_SOCKET_IFNAME=eth0
export GLOO_SOCKET_IFNAME=eth0
export NCCL_IB_HCA=mlx5_0,mlx5_1
export NODE_RANK=1
export GROUP_RANK=1
export NNODES=3
export NPROC_PER_NODE=8
export LOCAL_WORLD_SIZE=8
export ROLE_NAME=worker
export ROLE_WORLD_SIZE=24
export PAI_CURRENT_TASK_ROLE_NAME=worker
export PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX=1
export PAI_CONTAINER_HOST_IP=roce-k8s-worker-0
export PAI_CURRENT_CONTAINER_IP=roce-k8s-worker-0
export PAI_CONTAINER_HOST_PORT_LIST=''
export PAI_RESTART_COUNT=0
export TORCHELASTIC_RESTART_COUNT=0
case "${LOCAL_RANK:-0}" in
  0) export RANK=8 LOCAL_RANK=0 WORLD_SIZE=24 ROLE_RANK=8 ;;
  1) export RANK=9 LOCAL_RANK=1 WORLD_SIZE=24 ROLE_RANK=9 ;;
  2) export RANK=10 LOCAL_RANK=2 WORLD_SIZE=24 ROLE_RANK=10 ;;
  3) export RANK=11 LOCAL_RANK=3 WORLD_SIZE=24 ROLE_RANK=11 ;;
  4) export RANK=12 LOCAL_RANK=4 WORLD_SIZE=24 ROLE_RANK=12 ;;
  5) export RANK=13 LOCAL_RANK=5 WORLD_SIZE=24 ROLE_RANK=13 ;;
  6) export RANK=14 LOCAL_RANK=6 WORLD_SIZE=24 ROLE_RANK=14 ;;
  7) export RANK=15 LOCAL_RANK=7 WORLD_SIZE=24 ROLE_RANK=15 ;;
  *) echo 'env/worker-1.sh: LOCAL_RANK must be 0..7' >&2; return 1 2>/dev/null || exit 1 ;;
esac
