#!/bin/sh
# env/worker-0.sh: the env contract of job cifar10-ddp-gloo, role worker, instance 0.
# Source it with LOCAL_RANK set (default 0): LOCAL_RANK=1 . ./env/worker-0.sh
export PAI_JOB_NAME=cifar10-ddp-gloo
export PAI_TASK_ROLE_COUNT=1
export PAI_TASK_ROLE_LIST=worker
export PAI_TASK_ROLE_TASK_COUNT_worker=1
export PAI_RESOURCE_worker=4,32,131072,16384
export PAI_MIN_FAILED_TASK_COUNT_worker=1
export PAI_MIN_SUCCEEDED_TASK_COUNT_worker='-1'
export PAI_JOB_TASK_COUNT=1
export PAI_TASKS_NUM=1
export PAI_JOB_TASK_ROLE_COUNT=1
export PAI_TASK_ROLES_NUM=1
export PAI_JOB_TASK_ROLE_LIST=worker
export PAI_TASK_ROLE_worker_HOST_LIST=cifar10-ddp-gloo-node-0-0.cifar10-ddp-gloo
export PAI_HOST_IP_worker_0=cifar10-ddp-gloo-node-0-0.cifar10-ddp-gloo
export PAI_TASK_ROLE_INSTANCES=worker:0
export MASTER_ADDR=cifar10-ddp-gloo-node-0-0.cifar10-ddp-gloo
export MASTER_PORT=22017
export PAI_MAX_RESTARTS=3
export PAI_OUTPUT_DIR=/mnt/data/runs/cifar10-ddp-gloo
export PAI_CHECKPOINT_INTERVAL_SECONDS=49530
export NCCL_IB_DISABLE=1
export NCCL_SOCKET_IFNAME=eth0
export GLOO_SOCKET_IFNAME=eth0
export OMP_NUM_THREADS=8
export PYTHONUNBUFFERED=1
export NODE_RANK=0
export GROUP_RANK=0
export NNODES=1
export NPROC_PER_NODE=4
export LOCAL_WORLD_SIZE=4
export ROLE_NAME=worker
export ROLE_WORLD_SIZE=4
export PAI_CURRENT_TASK_ROLE_NAME=worker
export PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX=0
export PAI_CONTAINER_HOST_IP=cifar10-ddp-gloo-node-0-0.cifar10-ddp-gloo
export PAI_CURRENT_CONTAINER_IP=cifar10-ddp-gloo-node-0-0.cifar10-ddp-gloo
export PAI_CONTAINER_HOST_PORT_LIST=''
export PAI_RESTART_COUNT=0
export TORCHELASTIC_RESTART_COUNT=0
case "${LOCAL_RANK:-0}" in
  0) export RANK=0 LOCAL_RANK=0 WORLD_SIZE=4 ROLE_RANK=0 ;;
  1) export RANK=1 LOCAL_RANK=1 WORLD_SIZE=4 ROLE_RANK=1 ;;
  2) export RANK=2 LOCAL_RANK=2 WORLD_SIZE=4 ROLE_RANK=2 ;;
  3) export RANK=3 LOCAL_RANK=3 WORLD_SIZE=4 ROLE_RANK=3 ;;
  *) echo 'env/worker-0.sh: LOCAL_RANK must be 0..3' >&2; return 1 2>/dev/null || exit 1 ;;
esac
