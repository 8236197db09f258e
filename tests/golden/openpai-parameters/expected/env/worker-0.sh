#!/bin/sh
# env/worker-0.sh: the env contract of job bert-finetune, role worker, instance 0.
# Source it with LOCAL_RANK set (default 0): LOCAL_RANK=1 . ./env/worker-0.sh
export PAI_JOB_NAME=bert-finetune
export PAI_TASK_ROLE_COUNT=1
export PAI_TASK_ROLE_LIST=worker
export PAI_TASK_ROLE_TASK_COUNT_worker=2
export PAI_RESOURCE_worker=8,64,491520,0
export PAI_MIN_FAILED_TASK_COUNT_worker=1
export PAI_MIN_SUCCEEDED_TASK_COUNT_worker=2
export PAI_JOB_TASK_COUNT=2
export PAI_TASKS_NUM=2
export PAI_JOB_TASK_ROLE_COUNT=1
export PAI_TASK_ROLES_NUM=1
export PAI_JOB_TASK_ROLE_LIST=worker
export PAI_TASK_ROLE_worker_HOST_LIST=gpu-001:25578,gpu-002:25576
export PAI_HOST_IP_worker_0=gpu-001
export PAI_PORT_LIST_worker_0_http=25578
export PAI_worker_0_http_PORT=25578
export PAI_PORT_LIST_worker_0_ssh=25579
export PAI_worker_0_ssh_PORT=25579
export PAI_HOST_IP_worker_1=gpu-002
export PAI_PORT_LIST_worker_1_http=25576
export PAI_worker_1_http_PORT=25576
export PAI_PORT_LIST_worker_1_ssh=25577
export PAI_worker_1_ssh_PORT=25577
export PAI_TASK_ROLE_INSTANCES=worker:0,worker:1
export MASTER_ADDR=gpu-001
export MASTER_PORT=25577
export PAI_MAX_RESTARTS=0
export PAI_CHECKPOINT_INTERVAL_SECONDS=35012
export PAI_DEFAULT_FS_URI=''
export PAI_VIRTUAL_CLUSTER=default
export NODE_RANK=0
export GROUP_RANK=0
export NNODES=2
export NPROC_PER_NODE=8
export LOCAL_WORLD_SIZE=1
export ROLE_NAME=worker
export ROLE_WORLD_SIZE=2
export WORLD_SIZE=2
export RANK=0
export PET_NNODES=2
export PET_NODE_RANK=0
export PET_NPROC_PER_NODE=8
export PET_MASTER_ADDR=gpu-001
export PET_MASTER_PORT=25577
export PAI_CURRENT_TASK_ROLE_NAME=worker
export PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX=0
export PAI_CONTAINER_HOST_IP=gpu-001
export PAI_CURRENT_CONTAINER_IP=gpu-001
export PAI_CONTAINER_HOST_http_PORT_LIST=25578
export PAI_CONTAINER_HOST_ssh_PORT_LIST=25579
export PAI_CONTAINER_HOST_PORT_LIST='http:25578;ssh:25579;'
export PAI_CONTAINER_HOST_PORT=25578
export PAI_CURRENT_CONTAINER_PORT=25578
export PAI_CONTAINER_SSH_PORT=25579
export PAI_RESTART_COUNT=0
export TORCHELASTIC_RESTART_COUNT=0
case "${LOCAL_RANK:-0}" in
  0) export LOCAL_RANK=0 ROLE_RANK=0 ;;
  *) echo 'env/worker-0.sh: LOCAL_RANK must be 0..0' >&2; return 1 2>/dev/null || exit 1 ;;
esac
