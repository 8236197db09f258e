#!/bin/sh
# env/main-0.sh: the env contract of job upload-results, role main, instance 0.
# Source it with LOCAL_RANK set (default 0): LOCAL_RANK=1 . ./env/main-0.sh
export PAI_JOB_NAME=upload-results
export PAI_TASK_ROLE_COUNT=1
export PAI_TASK_ROLE_LIST=main
export PAI_TASK_ROLE_TASK_COUNT_main=1
export PAI_RESOURCE_main=1,4,16384,0
export PAI_MIN_FAILED_TASK_COUNT_main=1
export PAI_MIN_SUCCEEDED_TASK_COUNT_main=1
export PAI_JOB_TASK_COUNT=1
export PAI_TASKS_NUM=1
export PAI_JOB_TASK_ROLE_COUNT=1
export PAI_TASK_ROLES_NUM=1
export PAI_JOB_TASK_ROLE_LIST=main
export PAI_TASK_ROLE_main_HOST_LIST=gpu-001:22490
export PAI_HOST_IP_main_0=gpu-001
export PAI_PORT_LIST_main_0_http=22490
export PAI_main_0_http_PORT=22490
export PAI_PORT_LIST_main_0_ssh=22491
export PAI_main_0_ssh_PORT=22491
export PAI_TASK_ROLE_INSTANCES=main:0
export MASTER_ADDR=gpu-001
export MASTER_PORT=22489
export PAI_MAX_RESTARTS=0
export PAI_CHECKPOINT_INTERVAL_SECONDS=49530
export PAI_DEFAULT_FS_URI=''
export PAI_VIRTUAL_CLUSTER=default
export NODE_RANK=0
export GROUP_RANK=0
export NNODES=1
export NPROC_PER_NODE=1
export LOCAL_WORLD_SIZE=1
export ROLE_NAME=main
export ROLE_WORLD_SIZE=1
export WORLD_SIZE=1
export RANK=0
export PET_NNODES=1
export PET_NODE_RANK=0
export PET_NPROC_PER_NODE=1
export PET_MASTER_ADDR=gpu-001
export PET_MASTER_PORT=22489
export PAI_CURRENT_TASK_ROLE_NAME=main
export PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX=0
export PAI_CONTAINER_HOST_IP=gpu-001
export PAI_CURRENT_CONTAINER_IP=gpu-001
export PAI_CONTAINER_HOST_http_PORT_LIST=22490
export PAI_CONTAINER_HOST_ssh_PORT_LIST=22491
export PAI_CONTAINER_HOST_PORT_LIST='http:22490;ssh:22491;'
export PAI_CONTAINER_HOST_PORT=22490
export PAI_CURRENT_CONTAINER_PORT=22490
export PAI_CONTAINER_SSH_PORT=22491
export PAI_RESTART_COUNT=0
export TORCHELASTIC_RESTART_COUNT=0
case "${LOCAL_RANK:-0}" in
  0) export LOCAL_RANK=0 ROLE_RANK=0 ;;
  *) echo 'env/main-0.sh: LOCAL_RANK must be 0..0' >&2; return 1 2>/dev/null || exit 1 ;;
esac
