#!/bin/sh
# env/worker-2.sh: the env contract of job ray-train, role worker, instance 2.
# Source it with LOCAL_RANK set (default 0): LOCAL_RANK=1 . ./env/worker-2.sh
export PAI_JOB_NAME=ray-train
export PAI_TASK_ROLE_COUNT=2
export PAI_TASK_ROLE_LIST=head,worker
export PAI_TASK_ROLE_TASK_COUNT_head=1
export PAI_RESOURCE_head=8,64,0,0
export PAI_MIN_FAILED_TASK_COUNT_head=1
export PAI_MIN_SUCCEEDED_TASK_COUNT_head=1
export PAI_TASK_ROLE_TASK_COUNT_worker=3
export PAI_RESOURCE_worker=8,64,0,0
export PAI_MIN_FAILED_TASK_COUNT_worker=1
export PAI_MIN_SUCCEEDED_TASK_COUNT_worker='-1'
export PAI_JOB_TASK_COUNT=4
export PAI_TASKS_NUM=4
export PAI_JOB_TASK_ROLE_COUNT=2
export PAI_TASK_ROLES_NUM=2
export PAI_JOB_TASK_ROLE_LIST=head,worker
export PAI_TASK_ROLE_head_HOST_LIST=10.30.0.11:24570
export PAI_TASK_ROLE_worker_HOST_LIST=10.30.0.12,10.30.0.13,10.30.0.14
export PAI_HOST_IP_head_0=10.30.0.11
export PAI_PORT_LIST_head_0_dashboard=24570
export PAI_head_0_dashboard_PORT=24570
export PAI_PORT_LIST_head_0_ray=24571
export PAI_head_0_ray_PORT=24571
export PAI_HOST_IP_worker_0=10.30.0.12
export PAI_HOST_IP_worker_1=10.30.0.13
export PAI_HOST_IP_worker_2=10.30.0.14
export PAI_TASK_ROLE_INSTANCES=head:0,worker:0,worker:1,worker:2
export MASTER_ADDR=10.30.0.11
export MASTER_PORT=24569
export PAI_MAX_RESTARTS=2
export PAI_CHECKPOINT_INTERVAL_SECONDS=24745
export NCCL_IB_DISABLE=1
export NCCL_SOCKET_IFNAME=eth0
export GLOO_SOCKET_IFNAME=eth0
export RAY_ADDRESS=10.30.0.11:24571
export NODE_RANK=3
export GROUP_RANK=3
export NNODES=4
export NPROC_PER_NODE=8
export LOCAL_WORLD_SIZE=1
export ROLE_NAME=worker
export ROLE_WORLD_SIZE=3
export WORLD_SIZE=4
export RANK=3
export PET_NNODES=4
export PET_NODE_RANK=3
export PET_NPROC_PER_NODE=8
export PET_MASTER_ADDR=10.30.0.11
export PET_MASTER_PORT=24569
export PAI_CURRENT_TASK_ROLE_NAME=worker
export PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX=2
export PAI_CONTAINER_HOST_IP=10.30.0.14
export PAI_CURRENT_CONTAINER_IP=10.30.0.14
export PAI_CONTAINER_HOST_PORT_LIST=''
export PAI_RESTART_COUNT=0
export TORCHELASTIC_RESTART_COUNT=0
case "${LOCAL_RANK:-0}" in
  0) export LOCAL_RANK=0 ROLE_RANK=2 ;;
  *) echo 'env/worker-2.sh: LOCAL_RANK must be 0..0' >&2; return 1 2>/dev/null || exit 1 ;;
esac
