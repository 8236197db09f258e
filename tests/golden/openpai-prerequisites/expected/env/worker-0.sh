#!/bin/sh
# env/worker-0.sh: the env contract of job resnet-imagenet, role worker, instance 0.
# Source it with LOCAL_RANK set (default 0): LOCAL_RANK=1 . ./env/worker-0.sh
export PAI_JOB_NAME=resnet-imagenet
export PAI_TASK_ROLE_COUNT=2
export PAI_TASK_ROLE_LIST=master,worker
export PAI_TASK_ROLE_TASK_COUNT_master=1
export PAI_RESOURCE_master=8,32,131072,0
export PAI_MIN_FAILED_TASK_COUNT_master=1
export PAI_MIN_SUCCEEDED_TASK_COUNT_master=1
export PAI_TASK_ROLE_TASK_COUNT_worker=1
export PAI_RESOURCE_worker=8,32,131072,0
export PAI_MIN_FAILED_TASK_COUNT_worker=1
export PAI_MIN_SUCCEEDED_TASK_COUNT_worker=1
export PAI_JOB_TASK_COUNT=2
export PAI_TASKS_NUM=2
export PAI_JOB_TASK_ROLE_COUNT=2
export PAI_TASK_ROLES_NUM=2
export PAI_JOB_TASK_ROLE_LIST=master,worker
export PAI_TASK_ROLE_master_HOST_LIST=gpu-001:27618
export PAI_TASK_ROLE_worker_HOST_LIST=gpu-002:27616
export PAI_HOST_IP_master_0=gpu-001
export PAI_PORT_LIST_master_0_http=27618
export PAI_master_0_http_PORT=27618
export PAI_PORT_LIST_master_0_ssh=27619
export PAI_master_0_ssh_PORT=27619
export PAI_HOST_IP_worker_0=gpu-002
export PAI_PORT_LIST_worker_0_http=27616
export PAI_worker_0_http_PORT=27616
export PAI_PORT_LIST_worker_0_ssh=27617
export PAI_worker_0_ssh_PORT=27617
export PAI_TASK_ROLE_INSTANCES=master:0,worker:0
export MASTER_ADDR=gpu-001
export MASTER_PORT=27617
export PAI_MAX_RESTARTS=0
export PAI_CHECKPOINT_INTERVAL_SECONDS=35012
export PAI_DEFAULT_FS_URI=''
export PAI_VIRTUAL_CLUSTER=default
export NODE_RANK=1
export GROUP_RANK=1
export NNODES=2
export NPROC_PER_NODE=8
export LOCAL_WORLD_SIZE=1
export ROLE_NAME=worker
export ROLE_WORLD_SIZE=1
export WORLD_SIZE=2
export RANK=1
export PET_NNODES=2
export PET_NODE_RANK=1
export PET_NPROC_PER_NODE=8
export PET_MASTER_ADDR=gpu-001
export PET_MASTER_PORT=27617
export PAI_CURRENT_TASK_ROLE_NAME=worker
export PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX=0
export PAI_CONTAINER_HOST_IP=gpu-002
export PAI_CURRENT_CONTAINER_IP=gpu-002
export PAI_CONTAINER_HOST_http_PORT_LIST=27616
export PAI_CONTAINER_HOST_ssh_PORT_LIST=27617
export PAI_CONTAINER_HOST_PORT_LIST='http:27616;ssh:27617;'
export PAI_CONTAINER_HOST_PORT=27616
export PAI_CURRENT_CONTAINER_PORT=27616
export PAI_CONTAINER_SSH_PORT=27617
export PAI_RESTART_COUNT=0
export TORCHELASTIC_RESTART_COUNT=0
case "${LOCAL_RANK:-0}" in
  0) export LOCAL_RANK=0 ROLE_RANK=0 ;;
  *) echo 'env/worker-0.sh: LOCAL_RANK must be 0..0' >&2; return 1 2>/dev/null || exit 1 ;;
esac
