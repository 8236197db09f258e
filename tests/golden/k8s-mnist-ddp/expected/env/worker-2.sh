#!/bin/sh
# env/worker-2.sh: the env contract of job mnist-ddp, role worker, instance 2.
# Source it with LOCAL_RANK set (default 0): LOCAL_RANK=1 . ./env/worker-2.sh
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
export PAI_TASK_ROLE_worker_HOST_LIST=mnist-ddp-node-0-0.mnist-ddp,mnist-ddp-node-0-1.mnist-ddp,mnist-ddp-node-0-2.mnist-ddp,mnist-ddp-node-0-3.mnist-ddp
export PAI_HOST_IP_worker_0=mnist-ddp-node-0-0.mnist-ddp
export PAI_HOST_IP_worker_1=mnist-ddp-node-0-1.mnist-ddp
export PAI_HOST_IP_worker_2=mnist-ddp-node-0-2.mnist-ddp
export PAI_HOST_IP_worker_3=mnist-ddp-node-0-3.mnist-ddp
export PAI_TASK_ROLE_INSTANCES=worker:0,worker:1,worker:2,worker:3
export MASTER_ADDR=mnist-ddp-node-0-0.mnist-ddp
export MASTER_PORT=27953
export PAI_MAX_RESTARTS=3
export PAI_OUTPUT_DIR=/mnt/nas/runs/mnist-ddp
export PAI_CHECKPOINT_INTERVAL_SECONDS=24745
export NCCL_IB_DISABLE=1
export NCCL_SOCKET_IFNAME=eth0
export GLOO_SOCKET_IFNAME=eth0
export PYTHONUNBUFFERED=1
export NODE_RANK=2
export GROUP_RANK=2
export NNODES=4
export NPROC_PER_NODE=2
export LOCAL_WORLD_SIZE=1
export ROLE_NAME=worker
export ROLE_WORLD_SIZE=4
export WORLD_SIZE=4
export RANK=2
export PET_NNODES=4
export PET_NODE_RANK=2
export PET_NPROC_PER_NODE=2
export PET_MASTER_ADDR=mnist-ddp-node-0-0.mnist-ddp
export PET_MASTER_PORT=27953
export PAI_CURRENT_TASK_ROLE_NAME=worker
export PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX=2
export PAI_CONTAINER_HOST_IP=mnist-ddp-node-0-2.mnist-ddp
export PAI_CURRENT_CONTAINER_IP=mnist-ddp-node-0-2.mnist-ddp
export PAI_CONTAINER_HOST_PORT_LIST=''
export PAI_RESTART_COUNT=0
export TORCHELASTIC_RESTART_COUNT=0
case "${LOCAL_RANK:-0}" in
  0) export LOCAL_RANK=0 ROLE_RANK=2 ;;
  *) echo 'env/worker-2.sh: LOCAL_RANK must be 0..0' >&2; return 1 2>/dev/null || exit 1 ;;
esac
