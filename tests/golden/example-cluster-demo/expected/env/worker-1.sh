#!/bin/sh
# env/worker-1.sh: the env contract of job cluster-demo, role worker, instance 1.
# Source it with LOCAL_RANK set (default 0): LOCAL_RANK=1 . ./env/worker-1.sh
export PAI_JOB_NAME=cluster-demo
export PAI_TASK_ROLE_COUNT=1
export PAI_TASK_ROLE_LIST=worker
export PAI_TASK_ROLE_TASK_COUNT_worker=3
export PAI_RESOURCE_worker=0,0,0,0
export PAI_MIN_FAILED_TASK_COUNT_worker=1
export PAI_MIN_SUCCEEDED_TASK_COUNT_worker='-1'
export PAI_JOB_TASK_COUNT=3
export PAI_TASKS_NUM=3
export PAI_JOB_TASK_ROLE_COUNT=1
export PAI_TASK_ROLES_NUM=1
export PAI_JOB_TASK_ROLE_LIST=worker
export PAI_TASK_ROLE_worker_HOST_LIST=127.0.0.1,127.0.0.2,127.0.0.3
export PAI_HOST_IP_worker_0=127.0.0.1
export PAI_HOST_IP_worker_1=127.0.0.2
export PAI_HOST_IP_worker_2=127.0.0.3
export PAI_TASK_ROLE_INSTANCES=worker:0,worker:1,worker:2
export MASTER_ADDR=127.0.0.1
export MASTER_PORT=23441
export PAI_MAX_RESTARTS=2
export PAI_CHECKPOINT_INTERVAL_SECONDS=28579
export NODE_RANK=1
export GROUP_RANK=1
export NNODES=3
export NPROC_PER_NODE=2
export LOCAL_WORLD_SIZE=2
export ROLE_NAME=worker
export ROLE_WORLD_SIZE=6
export PAI_CURRENT_TASK_ROLE_NAME=worker
export PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX=1
export PAI_CONTAINER_HOST_IP=127.0.0.2
export PAI_CURRENT_CONTAINER_IP=127.0.0.2
export PAI_CONTAINER_HOST_PORT_LIST=''
export PAI_RESTART_COUNT=0
export TORCHELASTIC_RESTART_COUNT=0
case "${LOCAL_RANK:-0}" in
  0) export RANK=2 LOCAL_RANK=0 WORLD_SIZE=6 ROLE_RANK=2 ;;
  1) export RANK=3 LOCAL_RANK=1 WORLD_SIZE=6 ROLE_RANK=3 ;;
  *) echo 'env/worker-1.sh: LOCAL_RANK must be 0..1' >&2; return 1 2>/dev/null || exit 1 ;;
esac
