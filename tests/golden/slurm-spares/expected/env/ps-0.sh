#!/bin/sh
# env/ps-0.sh: the env contract of job ps-worker-spares, role ps, instance 0.
# Source it with LOCAL_RANK set (default 0): LOCAL_RANK=1 . ./env/ps-0.sh
export PAI_JOB_NAME=ps-worker-spares
export PAI_TASK_ROLE_COUNT=2
export PAI_TASK_ROLE_LIST=ps,worker
export PAI_TASK_ROLE_TASK_COUNT_ps=1
export PAI_RESOURCE_ps=0,9.5,3814,0
export PAI_MIN_FAILED_TASK_COUNT_ps=1
export PAI_MIN_SUCCEEDED_TASK_COUNT_ps='-1'
export PAI_TASK_ROLE_TASK_COUNT_worker=2
export PAI_RESOURCE_worker=4,8,3072,0
export PAI_MIN_FAILED_TASK_COUNT_worker=1
export PAI_MIN_SUCCEEDED_TASK_COUNT_worker='-1'
export PAI_JOB_TASK_COUNT=3
export PAI_TASKS_NUM=3
export PAI_JOB_TASK_ROLE_COUNT=2
export PAI_TASK_ROLES_NUM=2
export PAI_JOB_TASK_ROLE_LIST=ps,worker
export PAI_TASK_ROLE_ps_HOST_LIST=slurm-0
export PAI_TASK_ROLE_worker_HOST_LIST=slurm-1,slurm-2
export PAI_HOST_IP_ps_0=slurm-0
export PAI_HOST_IP_worker_0=slurm-1
export PAI_HOST_IP_worker_1=slurm-2
export PAI_TASK_ROLE_INSTANCES=ps:0,worker:0,worker:1
export MASTER_ADDR=slurm-0
export MASTER_PORT=23761
export PAI_MAX_RESTARTS=3
export PAI_CHECKPOINT_INTERVAL_SECONDS=28579
export NODE_RANK=0
export GROUP_RANK=0
export NNODES=3
export NPROC_PER_NODE=1
export LOCAL_WORLD_SIZE=1
export ROLE_NAME=ps
export ROLE_WORLD_SIZE=1
export WORLD_SIZE=3
export RANK=0
export PET_NNODES=3
export PET_NODE_RANK=0
export PET_NPROC_PER_NODE=1
export PET_MASTER_ADDR=slurm-0
export PET_MASTER_PORT=23761
export PAI_CURRENT_TASK_ROLE_NAME=ps
export PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX=0
export PAI_CONTAINER_HOST_IP=slurm-0
export PAI_CURRENT_CONTAINER_IP=slurm-0
export PAI_CONTAINER_HOST_PORT_LIST=''
export PAI_RESTART_COUNT=0
export TORCHELASTIC_RESTART_COUNT=0
case "${LOCAL_RANK:-0}" in
  0) export LOCAL_RANK=0 ROLE_RANK=0 ;;
  *) echo 'env/ps-0.sh: LOCAL_RANK must be 0..0' >&2; return 1 2>/dev/null || exit 1 ;;
esac
