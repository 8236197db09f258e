#!/bin/sh
# env/worker-0.sh: the env contract of job xgb-ctr, role worker, instance 0.
# Source it with LOCAL_RANK set (default 0): LOCAL_RANK=1 . ./env/worker-0.sh
export PAI_JOB_NAME=xgb-ctr
export PAI_TASK_ROLE_COUNT=1
export PAI_TASK_ROLE_LIST=worker
export PAI_TASK_ROLE_TASK_COUNT_worker=4
export PAI_RESOURCE_worker=0,32,204800,0
export PAI_MIN_FAILED_TASK_COUNT_worker=1
export PAI_MIN_SUCCEEDED_TASK_COUNT_worker='-1'
export PAI_JOB_TASK_COUNT=4
export PAI_TASKS_NUM=4
export PAI_JOB_TASK_ROLE_COUNT=1
export PAI_TASK_ROLES_NUM=1
export PAI_JOB_TASK_ROLE_LIST=worker
export PAI_TASK_ROLE_worker_HOST_LIST=10.40.0.11:22586,10.40.0.12:22584,10.40.0.13:22584,10.40.0.14:22584
export PAI_HOST_IP_worker_0=10.40.0.11
export PAI_PORT_LIST_worker_0_tracker=22586
export PAI_worker_0_tracker_PORT=22586
export PAI_HOST_IP_worker_1=10.40.0.12
export PAI_PORT_LIST_worker_1_tracker=22584
export PAI_worker_1_tracker_PORT=22584
export PAI_HOST_IP_worker_2=10.40.0.13
export PAI_PORT_LIST_worker_2_tracker=22584
export PAI_worker_2_tracker_PORT=22584
export PAI_HOST_IP_worker_3=10.40.0.14
export PAI_PORT_LIST_worker_3_tracker=22584
export PAI_worker_3_tracker_PORT=22584
export PAI_TASK_ROLE_INSTANCES=worker:0,worker:1,worker:2,worker:3
export MASTER_ADDR=10.40.0.11
export MASTER_PORT=22585
export PAI_MAX_RESTARTS=3
export PAI_OUTPUT_DIR=/mnt/models/xgb-ctr
export PAI_CHECKPOINT_INTERVAL_SECONDS=24745
export DMLC_TRACKER_URI=10.40.0.11
export DMLC_TRACKER_PORT=22586
export DMLC_NUM_WORKER=4
export OMP_NUM_THREADS=32
export NODE_RANK=0
export GROUP_RANK=0
export NNODES=4
export NPROC_PER_NODE=1
export LOCAL_WORLD_SIZE=1
export ROLE_NAME=worker
export ROLE_WORLD_SIZE=4
export WORLD_SIZE=4
export RANK=0
export PET_NNODES=4
export PET_NODE_RANK=0
export PET_NPROC_PER_NODE=1
export PET_MASTER_ADDR=10.40.0.11
export PET_MASTER_PORT=22585
export PAI_CURRENT_TASK_ROLE_NAME=worker
export PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX=0
export PAI_CONTAINER_HOST_IP=10.40.0.11
export PAI_CURRENT_CONTAINER_IP=10.40.0.11
export PAI_CONTAINER_HOST_tracker_PORT_LIST=22586
export PAI_CONTAINER_HOST_PORT_LIST='tracker:22586;'
export PAI_RESTART_COUNT=0
export TORCHELASTIC_RESTART_COUNT=0
case "${LOCAL_RANK:-0}" in
  0) export LOCAL_RANK=0 ROLE_RANK=0 ;;
  *) echo 'env/worker-0.sh: LOCAL_RANK must be 0..0' >&2; return 1 2>/dev/null || exit 1 ;;
esac
