#!/bin/sh
# env/ps-0.sh: the env contract of job wide-deep-ps, role ps, instance 0.
# Source it with LOCAL_RANK set (default 0): LOCAL_RANK=1 . ./env/ps-0.sh
export PAI_JOB_NAME=wide-deep-ps
export PAI_TASK_ROLE_COUNT=2
export PAI_TASK_ROLE_LIST=ps,worker
export PAI_TASK_ROLE_TASK_COUNT_ps=2
export PAI_RESOURCE_ps=0,16,65536,0
export PAI_TASK_ROLE_TASK_COUNT_worker=4
export PAI_RESOURCE_worker=1,16,65536,0
export PAI_TASK_ROLE_ps_HOST_LIST=wide-deep-ps-master-0,wide-deep-ps-worker-0
export PAI_TASK_ROLE_worker_HOST_LIST=wide-deep-ps-worker-1,wide-deep-ps-worker-2,wide-deep-ps-worker-3,wide-deep-ps-worker-4
export PAI_HOST_IP_ps_0=wide-deep-ps-master-0
export PAI_PORT_LIST_ps_0_grpc=20002
export PAI_ps_0_grpc_PORT=20002
export PAI_HOST_IP_ps_1=wide-deep-ps-worker-0
export PAI_PORT_LIST_ps_1_grpc=20000
export PAI_ps_1_grpc_PORT=20000
export PAI_HOST_IP_worker_0=wide-deep-ps-worker-1
export PAI_PORT_LIST_worker_0_grpc=20000
export PAI_worker_0_grpc_PORT=20000
export PAI_HOST_IP_worker_1=wide-deep-ps-worker-2
export PAI_PORT_LIST_worker_1_grpc=20000
export PAI_worker_1_grpc_PORT=20000
export PAI_HOST_IP_worker_2=wide-deep-ps-worker-3
export PAI_PORT_LIST_worker_2_grpc=20000
export PAI_worker_2_grpc_PORT=20000
export PAI_HOST_IP_worker_3=wide-deep-ps-worker-4
export PAI_PORT_LIST_worker_3_grpc=20000
export PAI_worker_3_grpc_PORT=20000
export MASTER_ADDR=wide-deep-ps-master-0
export MASTER_PORT=20001
export PAI_MAX_RESTARTS=20
export PAI_OUTPUT_DIR=/mnt/nfs/runs/wide-deep-ps
export NCCL_IB_DISABLE=1
export NCCL_SOCKET_IFNAME=eth0
export GLOO_SOCKET_IFNAME=eth0
export NODE_RANK=0
export GROUP_RANK=0
export NNODES=6
export NPROC_PER_NODE=1
export LOCAL_WORLD_SIZE=1
export ROLE_NAME=ps
export ROLE_WORLD_SIZE=2
export WORLD_SIZE=6
export RANK=0
export PET_NNODES=6
export PET_NODE_RANK=0
export PET_NPROC_PER_NODE=1
export PET_MASTER_ADDR=wide-deep-ps-master-0
export PET_MASTER_PORT=20001
export PAI_CURRENT_TASK_ROLE_NAME=ps
export PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX=0
export PAI_RESTART_COUNT=0
export TORCHELASTIC_RESTART_COUNT=0
case "${LOCAL_RANK:-0}" in
  0) export LOCAL_RANK=0 ROLE_RANK=0 ;;
  *) echo 'env/ps-0.sh: LOCAL_RANK must be 0..0' >&2; return 1 2>/dev/null || exit 1 ;;
esac
