#!/bin/sh
# env/train-0.sh: the env contract of job mnist-single, role train, instance 0.
# Source it with LOCAL_RANK set (default 0): LOCAL_RANK=1 . ./env/train-0.sh
export PAI_JOB_NAME=mnist-single
export PAI_TASK_ROLE_COUNT=1
export PAI_TASK_ROLE_LIST=train
export PAI_TASK_ROLE_TASK_COUNT_train=1
export PAI_RESOURCE_train=4,16,65536,0
export PAI_MIN_FAILED_TASK_COUNT_train=1
export PAI_MIN_SUCCEEDED_TASK_COUNT_train=1
export PAI_JOB_TASK_COUNT=1
export PAI_TASKS_NUM=1
export PAI_JOB_TASK_ROLE_COUNT=1
export PAI_TASK_ROLES_NUM=1
export PAI_JOB_TASK_ROLE_LIST=train
export PAI_TASK_ROLE_train_HOST_LIST=gpu-001:27154
export PAI_HOST_IP_train_0=gpu-001
export PAI_PORT_LIST_train_0_http=27154
export PAI_train_0_http_PORT=27154
export PAI_PORT_LIST_train_0_ssh=27155
export PAI_train_0_ssh_PORT=27155
export PAI_TASK_ROLE_INSTANCES=train:0
export MASTER_ADDR=gpu-001
export MASTER_PORT=27153
export PAI_MAX_RESTARTS=0
export PAI_CHECKPOINT_INTERVAL_SECONDS=49530
export PAI_DEFAULT_FS_URI=''
export PAI_VIRTUAL_CLUSTER=default
export NODE_RANK=0
export GROUP_RANK=0
export NNODES=1
export NPROC_PER_NODE=4
export LOCAL_WORLD_SIZE=1
export ROLE_NAME=train
export ROLE_WORLD_SIZE=1
export WORLD_SIZE=1
export RANK=0
export PET_NNODES=1
export PET_NODE_RANK=0
export PET_NPROC_PER_NODE=4
export PET_MASTER_ADDR=gpu-001
export PET_MASTER_PORT=27153
export PAI_CURRENT_TASK_ROLE_NAME=train
export PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX=0
export PAI_CONTAINER_HOST_IP=gpu-001
export PAI_CURRENT_CONTAINER_IP=gpu-001
export PAI_CONTAINER_HOST_http_PORT_LIST=27154
export PAI_CONTAINER_HOST_ssh_PORT_LIST=27155
export PAI_CONTAINER_HOST_PORT_LIST='http:27154;ssh:27155;'
export PAI_CONTAINER_HOST_PORT=27154
export PAI_CURRENT_CONTAINER_PORT=27154
export PAI_CONTAINER_SSH_PORT=27155
export PAI_RESTART_COUNT=0
export TORCHELASTIC_RESTART_COUNT=0
case "${LOCAL_RANK:-0}" in
  0) export LOCAL_RANK=0 ROLE_RANK=0 ;;
  *) echo 'env/train-0.sh: LOCAL_RANK must be 0..0' >&2; return 1 2>/dev/null || exit 1 ;;
esac
