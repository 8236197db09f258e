#!/bin/sh
# env/worker-0.sh: the env contract of job mpi-ib, role worker, instance 0.
# Source it with LOCAL_RANK set (default 0): LOCAL_RANK=1 . ./env/worker-0.sh
export PAI_JOB_NAME=mpi-ib
export PAI_TASK_ROLE_COUNT=2
export PAI_TASK_ROLE_LIST=launcher,worker
export PAI_TASK_ROLE_TASK_COUNT_launcher=1
export PAI_RESOURCE_launcher=0,0,0,0
export PAI_MIN_FAILED_TASK_COUNT_launcher=1
export PAI_MIN_SUCCEEDED_TASK_COUNT_launcher='-1'
export PAI_TASK_ROLE_TASK_COUNT_worker=2
export PAI_RESOURCE_worker=8,0,0,32768
export PAI_MIN_FAILED_TASK_COUNT_worker=1
export PAI_MIN_SUCCEEDED_TASK_COUNT_worker='-1'
export PAI_JOB_TASK_COUNT=3
export PAI_TASKS_NUM=3
export PAI_JOB_TASK_ROLE_COUNT=2
export PAI_TASK_ROLES_NUM=2
export PAI_JOB_TASK_ROLE_LIST=launcher,worker
export PAI_TASK_ROLE_launcher_HOST_LIST=mpi-ib-launcher.mpi-ib
export PAI_TASK_ROLE_worker_HOST_LIST=mpi-ib-worker-0.mpi-ib,mpi-ib-worker-1.mpi-ib
export PAI_HOST_IP_launcher_0=mpi-ib-launcher.mpi-ib
export PAI_HOST_IP_worker_0=mpi-ib-worker-0.mpi-ib
export PAI_HOST_IP_worker_1=mpi-ib-worker-1.mpi-ib
export PAI_TASK_ROLE_INSTANCES=launcher:0,worker:0,worker:1
export MASTER_ADDR=mpi-ib-launcher.mpi-ib
export MASTER_PORT=24673
export PAI_MAX_RESTARTS=3
export PAI_CHECKPOINT_INTERVAL_SECONDS=28579
export NCCL_IB_HCA=mlx5_0
export NODE_RANK=1
export GROUP_RANK=1
export NNODES=3
export NPROC_PER_NODE=8
export LOCAL_WORLD_SIZE=8
export ROLE_NAME=worker
export ROLE_WORLD_SIZE=16
export PAI_CURRENT_TASK_ROLE_NAME=worker
export PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX=0
export PAI_CONTAINER_HOST_IP=mpi-ib-worker-0.mpi-ib
export PAI_CURRENT_CONTAINER_IP=mpi-ib-worker-0.mpi-ib
export PAI_CONTAINER_HOST_PORT_LIST=''
export PAI_RESTART_COUNT=0
export TORCHELASTIC_RESTART_COUNT=0
export OMPI_MCA_orte_default_hostfile=hostfile
case "${LOCAL_RANK:-0}" in
  0) export RANK=0 LOCAL_RANK=0 WORLD_SIZE=16 ROLE_RANK=0 ;;
  1) export RANK=1 LOCAL_RANK=1 WORLD_SIZE=16 ROLE_RANK=1 ;;
  2) export RANK=2 LOCAL_RANK=2 WORLD_SIZE=16 ROLE_RANK=2 ;;
  3) export RANK=3 LOCAL_RANK=3 WORLD_SIZE=16 ROLE_RANK=3 ;;
  4) export RANK=4 LOCAL_RANK=4 WORLD_SIZE=16 ROLE_RANK=4 ;;
  5) export RANK=5 LOCAL_RANK=5 WORLD_SIZE=16 ROLE_RANK=5 ;;
  6) export RANK=6 LOCAL_RANK=6 WORLD_SIZE=16 ROLE_RANK=6 ;;
  7) export RANK=7 LOCAL_RANK=7 WORLD_SIZE=16 ROLE_RANK=7 ;;
  *) echo 'env/worker-0.sh: LOCAL_RANK must be 0..7' >&2; return 1 2>/dev/null || exit 1 ;;
esac
