#!/bin/sh
# env/launcher-0.sh: the env contract of job allreduce-volcano, role launcher, instance 0.
# Source it with LOCAL_RANK set (default 0): LOCAL_RANK=1 . ./env/launcher-0.sh
export PAI_JOB_NAME=allreduce-volcano
export PAI_TASK_ROLE_COUNT=2
export PAI_TASK_ROLE_LIST=launcher,worker
export PAI_TASK_ROLE_TASK_COUNT_launcher=1
export PAI_RESOURCE_launcher=0,0,0,0
export PAI_MIN_FAILED_TASK_COUNT_launcher=1
export PAI_MIN_SUCCEEDED_TASK_COUNT_launcher=1
export PAI_TASK_ROLE_TASK_COUNT_worker=2
export PAI_RESOURCE_worker=8,64,524288,0
export PAI_MIN_FAILED_TASK_COUNT_worker=1
export PAI_MIN_SUCCEEDED_TASK_COUNT_worker='-1'
export PAI_JOB_TASK_COUNT=3
export PAI_TASKS_NUM=3
export PAI_JOB_TASK_ROLE_COUNT=2
export PAI_TASK_ROLES_NUM=2
export PAI_JOB_TASK_ROLE_LIST=launcher,worker
export PAI_TASK_ROLE_launcher_HOST_LIST=allreduce-volcano-launcher-0-0.allreduce-volcano
export PAI_TASK_ROLE_worker_HOST_LIST=allreduce-volcano-node-0-0.allreduce-volcano,allreduce-volcano-node-0-1.allreduce-volcano
export PAI_HOST_IP_launcher_0=allreduce-volcano-launcher-0-0.allreduce-volcano
export PAI_HOST_IP_worker_0=allreduce-volcano-node-0-0.allreduce-volcano
export PAI_HOST_IP_worker_1=allreduce-volcano-node-0-1.allreduce-volcano
export PAI_TASK_ROLE_INSTANCES=launcher:0,worker:0,worker:1
export MASTER_ADDR=allreduce-volcano-launcher-0-0.allreduce-volcano
export MASTER_PORT=25681
export PAI_MAX_RESTARTS=3
export PAI_CHECKPOINT_INTERVAL_SECONDS=28579
export NCCL_IB_HCA=mlx5_0
export NODE_RANK=0
export GROUP_RANK=0
export NNODES=3
export NPROC_PER_NODE=1
export LOCAL_WORLD_SIZE=1
export ROLE_NAME=launcher
export ROLE_WORLD_SIZE=1
export WORLD_SIZE=3
export RANK=0
export PET_NNODES=3
export PET_NODE_RANK=0
export PET_NPROC_PER_NODE=1
export PET_MASTER_ADDR=allreduce-volcano-launcher-0-0.allreduce-volcano
export PET_MASTER_PORT=25681
export PAI_CURRENT_TASK_ROLE_NAME=launcher
export PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX=0
export PAI_CONTAINER_HOST_IP=allreduce-volcano-launcher-0-0.allreduce-volcano
export PAI_CURRENT_CONTAINER_IP=allreduce-volcano-launcher-0-0.allreduce-volcano
export PAI_CONTAINER_HOST_PORT_LIST=''
export PAI_RESTART_COUNT=0
export TORCHELASTIC_RESTART_COUNT=0
export OMPI_MCA_orte_default_hostfile=hostfile
case "${LOCAL_RANK:-0}" in
  0) export LOCAL_RANK=0 ROLE_RANK=0 ;;
  *) echo 'env/launcher-0.sh: LOCAL_RANK must be 0..0' >&2; return 1 2>/dev/null || exit 1 ;;
esac
