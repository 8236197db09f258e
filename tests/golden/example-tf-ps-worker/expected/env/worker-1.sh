#!/bin/sh
# env/worker-1.sh: the env contract of job wide-deep-ps, role worker, instance 1.
# Source it with LOCAL_RANK set (default 0): LOCAL_RANK=1 . ./env/worker-1.sh
export PAI_JOB_NAME=wide-deep-ps
export PAI_TASK_ROLE_COUNT=2
export PAI_TASK_ROLE_LIST=ps,worker
export PAI_TASK_ROLE_TASK_COUNT_ps=2
export PAI_RESOURCE_ps=0,16,65536,0
export PAI_TASK_ROLE_TASK_COUNT_worker=4
export PAI_RESOURCE_worker=1,16,65536,0
export PAI_TASK_ROLE_ps_HOST_LIST=10.30.0.1,10.30.0.2
export PAI_TASK_ROLE_worker_HOST_LIST=10.30.1.1,10.30.1.2,10.30.1.3,10.30.1.4
export PAI_HOST_IP_ps_0=10.30.0.1
export PAI_PORT_LIST_ps_0_grpc=20002
export PAI_ps_0_grpc_PORT=20002
export PAI_HOST_IP_ps_1=10.30.0.2
export PAI_PORT_LIST_ps_1_grpc=20000
export PAI_ps_1_grpc_PORT=20000
export PAI_HOST_IP_worker_0=10.30.1.1
export PAI_PORT_LIST_worker_0_grpc=20000
export PAI_worker_0_grpc_PORT=20000
export PAI_HOST_IP_worker_1=10.30.1.2
export PAI_PORT_LIST_worker_1_grpc=20000
export PAI_worker_1_grpc_PORT=20000
export PAI_HOST_IP_worker_2=10.30.1.3
export PAI_PORT_LIST_worker_2_grpc=20000
export PAI_worker_2_grpc_PORT=20000
export PAI_HOST_IP_worker_3=10.30.1.4
export PAI_PORT_LIST_worker_3_grpc=20000
export PAI_worker_3_grpc_PORT=20000
export MASTER_ADDR=10.30.0.1
export MASTER_PORT=20001
export PAI_MAX_RESTARTS=20
export PAI_OUTPUT_DIR=/mnt/nfs/runs/wide-deep-ps
export NCCL_IB_DISABLE=1
export NCCL_SOCKET_IFNAME=eth0
export GLOO_SOCKET_IFNAME=eth0
export NODE_RANK=3
export GROUP_RANK=3
export NNODES=6
export NPROC_PER_NODE=1
export LOCAL_WORLD_SIZE=1
export ROLE_NAME=worker
export ROLE_WORLD_SIZE=4
export WORLD_SIZE=6
export RANK=3
export PET_NNODES=6
export PET_NODE_RANK=3
export PET_NPROC_PER_NODE=1
export PET_MASTER_ADDR=10.30.0.1
export PET_MASTER_PORT=20001
export PAI_CURRENT_TASK_ROLE_NAME=worker
export PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX=1
export PAI_RESTART_COUNT=0
export TORCHELASTIC_RESTART_COUNT=0
case "${LOCAL_RANK:-0}" in
  0) export LOCAL_RANK=0 ROLE_RANK=1 ;;
  *) echo 'env/worker-1.sh: LOCAL_RANK must be 0..0' >&2; return 1 2>/dev/null || exit 1 ;;
esac
